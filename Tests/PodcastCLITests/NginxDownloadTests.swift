import Foundation
import PodcastTestSupport
import Testing

/// Downloads from a real nginx: a production server's framing, sendfile and validators.
@Suite(.enabled(if: NginxServer.isAvailable, "nginx-light is installed by make setup"), .timeLimit(.minutes(5)))
struct NginxDownloadTests {
    @Test func episodesFromNginxArriveByteForByte() async throws {
        let nginx = try await NginxServer()
        // 1.5 MB each, distinct, built from a 4 KiB block (per-byte generation is slow in debug builds).
        let bodies = (1...4).map { seed in
            let block = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) })
            return Data(repeating: 0, count: 0) + (0..<366).reduce(into: Data()) { data, _ in data += block } + Data([UInt8(seed)])
        }
        var items = ""
        for (index, body) in bodies.enumerated() {
            try nginx.serve(body, at: "/media/\(index).mp3")
            items += "<item><title>Part \(index)</title><guid>p\(index)</guid><enclosure url=\"/media/\(index).mp3\" length=\"\(body.count)\" type=\"audio/mpeg\"/></item>"
        }
        try nginx.serve(Data("<rss><channel><title>Nginx Show</title>\(items)</channel></rss>".utf8), at: "/feed.xml")

        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", nginx.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "all", "--concurrency", "4"])
        await nginx.stop()
        #expect(result.status == 0, "\(result.stderr)")
        for (index, body) in bodies.enumerated() {
            let file = podcast.stateDirectory + "/Episodes/Nginx Show/Part \(index).mp3"
            #expect(try Data(contentsOf: URL(filePath: file)) == body)
        }
    }
}
