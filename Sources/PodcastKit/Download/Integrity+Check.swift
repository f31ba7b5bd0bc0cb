import FoundationEssentials
import PodcastPlatform

extension Integrity {
    /// What of this value a downloaded file can be checked against; nil for a signature or a
    /// value without a usable digest.
    public var check: Check? { Check(type: type, value: value) }

    /// The digests of a Subresource Integrity value (`type="sri" value="sha384-…"`), to compare a
    /// downloaded file with.
    public struct Check: Sendable, Equatable, CustomStringConvertible {
        /// The hash function checked: the strongest one the value names.
        public let algorithm: SHA2.Variant
        /// The digests of `algorithm` the value lists; a file with any of them matches.
        private let digests: [[UInt8]]

        /// Reads a `podcast:integrity` element's `type` and `value`; nil when there is nothing to
        /// check: a type other than "sri" (such as "pgp-signature"), or a value without a single
        /// well-formed token of a known algorithm.
        ///
        /// The value is W3C Subresource Integrity metadata: tokens `algorithm-base64[?options]`
        /// separated by whitespace. Unknown algorithms, options, and tokens whose digest is not of
        /// the algorithm's length are ignored; of the rest only the strongest algorithm counts.
        public init?(type: String, value: String) {
            guard type.lowercased() == "sri" else { return nil }
            let tokens = value.split(whereSeparator: \.isWhitespace).compactMap(Self.token)
            guard let strongest = tokens.map(\.algorithm).max(by: { $0.digestByteCount < $1.digestByteCount }) else {
                return nil
            }
            algorithm = strongest
            digests = tokens.filter { $0.algorithm == strongest }.map(\.digest)
        }

        /// Whether the file at `path` has one of the published digests. Reads the whole file on the
        /// calling thread, so call it off the cooperative pool.
        public func verify(file path: String) throws(SystemError) -> Bool {
            digests.contains(try SHA2.digest(ofFile: path, algorithm))
        }

        /// Whether a file whose SHA-256 is `sha256` matches, when this checks SHA-256 (nil when it
        /// checks another algorithm: the file must be read then).
        func matches(sha256: [UInt8]) -> Bool? {
            algorithm == .sha256 ? digests.contains(sha256) : nil
        }

        /// Whether the downloaded file at `path`, whose SHA-256 (taken as it arrived) is `sha256`,
        /// matches: decided by that digest when this checks SHA-256, else by reading the file again.
        func matches(file path: String, sha256: [UInt8]) throws(SystemError) -> Bool {
            if let decided = matches(sha256: sha256) { return decided }
            return try verify(file: path)
        }

        /// The algorithm checked, such as "sha384", for messages.
        public var description: String { algorithm.rawValue }

        /// One `algorithm-base64[?options]` token; nil when the algorithm is unknown or the digest
        /// does not decode to the algorithm's length.
        private static func token(_ text: Substring) -> (algorithm: SHA2.Variant, digest: [UInt8])? {
            let expression = text.prefix { $0 != "?" }
            guard let dash = expression.firstIndex(of: "-"),
                  let algorithm = SHA2.Variant(rawValue: expression[..<dash].lowercased()),
                  let digest = decodeBase64(expression[expression.index(after: dash)...]),
                  digest.count == algorithm.digestByteCount
            else { return nil }
            return (algorithm, digest)
        }

        /// Standard base64 or base64url, padded or not: the grammar SRI takes from CSP allows all four.
        private static func decodeBase64(_ text: Substring) -> [UInt8]? {
            var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
            standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
            return Data(base64Encoded: standard).map { [UInt8]($0) }
        }
    }
}
