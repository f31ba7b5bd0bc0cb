import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// The ID3v2 lengths the MP3 splice reads.
@Suite(.timeLimit(.minutes(5))) struct ID3SpliceTests {
    @Test func id3v2LengthsIncludeTheHeaderAndAnyFooter() {
        #expect(ID3Splice.tagLength(Array("ID3".utf8) + [4, 0, 0, 0, 0, 1, 0x7F]) == 10 + 255)
        #expect(ID3Splice.tagLength(Array("ID3".utf8) + [4, 0, 0x10, 0, 0, 0, 10]) == 10 + 10 + 10)
        #expect(ID3Splice.tagLength(Array("ID3".utf8) + [4, 0, 0, 0x80, 0, 0, 0]) == 0, "not a synchsafe size")
        #expect(ID3Splice.tagLength([0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0, 0, 0]) == 0)
    }
}
