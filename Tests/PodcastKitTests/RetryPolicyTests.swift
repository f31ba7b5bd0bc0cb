import CCurl
@testable import PodcastKit
import Testing

/// `RetryPolicy.decide`: what follows a failed attempt.
@Suite struct RetryPolicyTests {
    private let policy = RetryPolicy(retries: 3)

    private func lost(received: Int64) -> FailedTransfer {
        let error = HTTPError.curl(CURLE_RECV_ERROR, url: "http://127.0.0.1/a.mp3", curlMessage: "", settings: HTTPSettings())
        return FailedTransfer(id: 1, kind: .http(error), url: "http://127.0.0.1/a.mp3", bytes: received, received: received)
    }

    @Test func aDroppedConnectionThatBroughtBytesContinuesAtOnce() {
        var history = RetryPolicy.History()
        #expect(policy.decide(after: lost(received: 4096), resumed: false, history: &history) == .resumeNow)
        #expect(history.failuresWithoutProgress == 0)
    }

    /// A server that resets every connection before sending anything must be waited for and
    /// given up on, not asked again at once forever.
    @Test func aDroppedConnectionThatBroughtNothingBacksOffAndEventuallyFails() {
        var history = RetryPolicy.History()
        var decisions: [RetryPolicy.Decision] = []
        for _ in 1...3 {
            decisions.append(policy.decide(after: lost(received: 0), resumed: false, history: &history))
        }
        #expect(decisions.prefix(2).allSatisfy { if case .resume = $0 { true } else { false } }, "\(decisions)")
        #expect(decisions.last == .fail(final: false))
    }
}
