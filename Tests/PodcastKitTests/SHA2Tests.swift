import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct SHA2Tests {
    static let twoBlocks448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    static let twoBlocks896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"

    /// FIPS 180-4 examples (NIST CSRC), and messages that just fit one block with their padding.
    @Test(arguments: [
        (SHA2.Variant.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha256, twoBlocks448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (.sha256, twoBlocks896, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        (.sha256, String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (.sha384, "", "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"),
        (.sha384, "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (.sha384, twoBlocks448, "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b"),
        (.sha384, twoBlocks896, "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039"),
        (.sha384, String(repeating: "a", count: 111), "3c37955051cb5c3026f94d551d5b5e2ac38d572ae4e07172085fed81f8466b8f90dc23a8ffcdea0b8d8e58e8fdacc80a"),
        (.sha512, "", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        (.sha512, "abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        (.sha512, twoBlocks448, "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        (.sha512, twoBlocks896, "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
        (.sha512, String(repeating: "a", count: 111), "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef86818196921760b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2"),
    ])
    func knownMessagesHaveTheirPublishedDigests(variant: SHA2.Variant, message: String, digest: String) {
        #expect(hex(Self.digest(Array(message.utf8), variant)) == digest)
    }

    /// The well-known one-million-'a' vectors (SHA-384's is checked through a file below).
    @Test(arguments: [
        (SHA2.Variant.sha256, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        (.sha512, "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ])
    func oneMillionAsHasItsPublishedDigest(variant: SHA2.Variant, digest: String) {
        #expect(hex(Self.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000), variant)) == digest)
    }

    @Test(arguments: SHA2.Variant.allCases)
    func oddSizedPiecesGiveTheDigestOfOnePiece(variant: SHA2.Variant) {
        let message = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = Self.digest(message, variant)
        for pieceSize in [1, 3, 7, 55, 63, 64, 65, 111, 127, 128, 129, 999] {
            var hasher = SHA2(variant)
            var start = 0
            while start < message.count {
                let end = min(start + pieceSize, message.count)
                message[start..<end].withUnsafeBytes { hasher.update($0) }
                start = end
            }
            #expect(hasher.finish() == whole, "pieces of \(pieceSize) bytes")
        }
    }

    /// A digest is a value: a copy taken midway goes on independently of the original.
    @Test(arguments: SHA2.Variant.allCases)
    func aCopyTakenMidwayIsAnIndependentDigest(variant: SHA2.Variant) {
        let message = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        var original = SHA2(variant)
        message.prefix(1_234).withUnsafeBytes { original.update($0) }
        var copy = original
        message.dropFirst(1_234).withUnsafeBytes { copy.update($0) }
        #expect(copy.finish() == Self.digest(message, variant))
        #expect(original.finish() == Self.digest(Array(message.prefix(1_234)), variant))
    }

    @Test func hexIsLowercaseTwoDigitsPerByte() {
        #expect(SHA2.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    }

    @Test(arguments: SHA2.Variant.allCases)
    func digestHasTheVariantsLength(variant: SHA2.Variant) {
        #expect(Self.digest([], variant).count == variant.digestByteCount)
    }

    @Test func fileIsHashedByPathAcrossManyReads() throws {
        let directory = try TemporaryDirectory(prefix: "sha2")
        // One million 'a': four 256 KiB reads, the last one short.
        try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: URL(filePath: directory.path("a")))
        #expect(hex(try SHA2.digest(ofFile: directory.path("a"), .sha384))
            == "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985")
    }

    @Test func missingFileThrowsNamingOpenAndThePath() throws {
        let directory = try TemporaryDirectory(prefix: "sha2")
        let path = directory.path("missing")
        #expect(throws: SystemError(call: "open", path: path, code: ENOENT)) {
            try SHA2.digest(ofFile: path, .sha512)
        }
    }

    private static func digest(_ message: [UInt8], _ variant: SHA2.Variant) -> [UInt8] {
        var hasher = SHA2(variant)
        message.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
