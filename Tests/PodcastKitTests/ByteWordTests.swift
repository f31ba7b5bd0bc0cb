@testable import PodcastText
import Testing
@testable import PodcastKit

@Suite(.timeLimit(.minutes(5))) struct ByteWordTests {
    /// `firstOffset` against a byte-by-byte scan, on words made to trip the borrow of the
    /// zero-byte trick: the searched bytes, the bytes one above and below them, 0x00, 0x01, 0x7F,
    /// 0x80 and 0xFF, in every order (all 12^4 words of four such bytes, in each half of the word),
    /// and a million words of random bytes.
    @Test func firstOffsetFindsTheFirstByteThatMatters() {
        let first = UInt8(ascii: "<"), second = UInt8(ascii: "&")
        let tricky: [UInt8] = [first, second, first - 1, first + 1, second - 1, second + 1, 0x00, 0x01, 0x7F, 0x80, 0xFF, 0x41]
        var words: [[UInt8]] = []
        for a in tricky { for b in tricky { for c in tricky { for d in tricky {
            words.append([0x41, 0x41, 0x41, 0x41, a, b, c, d])
            words.append([a, b, c, d, 0x41, 0x41, 0x41, 0x41])
        } } } }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<1_000_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            words.append(withUnsafeBytes(of: state) { Array($0) })
        }
        var checked = 0
        for word in words {
            for nonASCII in [false, true] {
                let expected = word.firstIndex { $0 == first || $0 == second || (nonASCII && $0 >= 0x80) }
                let found = word.withUnsafeBytes { ByteWord($0, at: 0).firstOffset(of: first, second, orNonASCII: nonASCII) }
                if found != expected {
                    Issue.record("\(word.map { String($0, radix: 16) }) nonASCII \(nonASCII): \(String(describing: found)), not \(String(describing: expected))")
                    return
                }
                checked += 1
            }
        }
        #expect(checked == 2 * (2 * 12 * 12 * 12 * 12 + 1_000_000))
    }
}
