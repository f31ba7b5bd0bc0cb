import Foundation
@testable import PodcastKit
@testable import PodcastPlatform
import PodcastTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct IntegrityTests {
    /// Digests of `content`, standard base64.
    static let content = "episode audio\n"
    static let sha256 = "tgVzsqdik/gHQW927pBVZ3CRxKTK/2PjvjWAvYBq6pQ="
    static let sha384 = "JmvThVAlsdrPsACRUdDItrJgnBpW0T+Cfuip0smofhq7+QWqifwvTIGBdqC/kwZT"
    static let sha512 = "5virt/mXIUQ97hDMNzxDSrYzdfsI+Opcy/mtQdalT/fof44oD85gnSmcmGOfpR1VQ9Rt70QZMjGW1y88IVbBMw=="
    /// A well-formed SHA-384 digest of something else.
    static let otherSHA384 = "ExVqijgYHm15PqQqdXfW95x+Rs6C+d6E/ICxyQOeFevnxNLR/wtJNrNYTjIysUBo"

    @Test func sriValueNamesItsAlgorithm() throws {
        let check = try #require(Integrity.Check(type: "sri", value: "sha384-\(Self.otherSHA384)"))
        #expect(check.algorithm == .sha384)
        #expect(check.description == "sha384")
    }

    @Test func feedIntegrityGivesItsCheck() {
        #expect(Integrity(type: "sri", value: "sha256-\(Self.sha256)").check?.algorithm == .sha256)
        #expect(Integrity(type: "pgp-signature", value: "-----BEGIN PGP SIGNATURE-----").check == nil)
    }

    @Test(arguments: ["pgp-signature", "", "sha384", "sri2"])
    func typesOtherThanSRICannotBeChecked(type: String) {
        #expect(Integrity.Check(type: type, value: "sha384-\(Self.sha384)") == nil)
    }

    @Test(arguments: [
        "",
        "   ",
        "sha384",
        "sha384-",
        "sha384-!!!!",
        "sha384-YWJj",  // decodes, but to 3 bytes, not 48
        "sha384-\(sha256)",  // a SHA-256-sized digest under the SHA-384 name
        "md5-rL0Y20zC+Fzt72VPzMSk2A==",
        "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
        "-\(sha384)",
    ])
    func valuesWithoutAUsableDigestCannotBeChecked(value: String) {
        #expect(Integrity.Check(type: "sri", value: value) == nil)
    }

    @Test func strongestAlgorithmPresentIsChecked() throws {
        let value = "sha256-\(Self.sha256) sha512-\(Self.sha512) sha384-\(Self.sha384)"
        #expect(Integrity.Check(type: "sri", value: value)?.algorithm == .sha512)
    }

    @Test func unknownAlgorithmsAreIgnored() throws {
        let check = Integrity.Check(type: "sri", value: "sha3-512-abc md5-rL0Y20zC+Fzt72VPzMSk2A== sha256-\(Self.sha256)")
        #expect(check?.algorithm == .sha256)
    }

    @Test func typeAndAlgorithmAreReadWithoutRegardToCase() {
        #expect(Integrity.Check(type: "SRI", value: "SHA384-\(Self.sha384)")?.algorithm == .sha384)
    }

    @Test func matchingFileVerifies() throws {
        let file = try Self.contentFile()
        let check = try #require(Integrity.Check(type: "sri", value: "sha384-\(Self.sha384)"))
        #expect(try check.verify(file: file.path("episode")))
    }

    @Test(arguments: ["sha256-\(sha256)", "sha384-\(sha384)", "sha512-\(sha512)"])
    func eachAlgorithmVerifiesItsDigest(value: String) throws {
        let file = try Self.contentFile()
        #expect(try #require(Integrity.Check(type: "sri", value: value)).verify(file: file.path("episode")))
    }

    @Test func changedFileDoesNotVerify() throws {
        let file = try Self.contentFile(Self.content + "!")
        let check = try #require(Integrity.Check(type: "sri", value: "sha384-\(Self.sha384)"))
        #expect(try !check.verify(file: file.path("episode")))
    }

    @Test func anyDigestOfTheStrongestAlgorithmMatches() throws {
        let file = try Self.contentFile()
        let value = "sha384-\(Self.otherSHA384) sha384-\(Self.sha384)"
        #expect(try #require(Integrity.Check(type: "sri", value: value)).verify(file: file.path("episode")))
    }

    @Test func matchingWeakerDigestDoesNotSaveAStrongerMismatch() throws {
        let file = try Self.contentFile()
        let check = try #require(Integrity.Check(type: "sri", value: "sha256-\(Self.sha256) sha384-\(Self.otherSHA384)"))
        #expect(try !check.verify(file: file.path("episode")))
    }

    @Test func optionsAfterAQuestionMarkAreIgnored() throws {
        let file = try Self.contentFile()
        let check = try #require(Integrity.Check(type: "sri", value: "sha384-\(Self.sha384)?ct=audio/mpeg"))
        #expect(try check.verify(file: file.path("episode")))
    }

    @Test func base64URLWithoutPaddingIsAccepted() throws {
        let file = try Self.contentFile()
        let urlSafe = Self.sha512.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let check = try #require(Integrity.Check(type: "sri", value: "sha512-\(urlSafe)"))
        #expect(try check.verify(file: file.path("episode")))
    }

    @Test func tokensMaySitOnSeveralLines() throws {
        let check = Integrity.Check(type: "sri", value: "\n\tsha256-\(Self.sha256)\n\tsha384-\(Self.sha384)\n")
        #expect(check?.algorithm == .sha384)
    }

    @Test func missingFileThrows() throws {
        let directory = try TemporaryDirectory(prefix: "integrity")
        let check = try #require(Integrity.Check(type: "sri", value: "sha384-\(Self.sha384)"))
        #expect(throws: SystemError.self) { try check.verify(file: directory.path("missing")) }
    }

    /// A directory holding `episode` with `text` in it.
    private static func contentFile(_ text: String = content) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "integrity")
        try Data(text.utf8).write(to: URL(filePath: directory.path("episode")))
        return directory
    }
}
