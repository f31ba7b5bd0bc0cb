import Glibc

/// The secrets a URL can carry, masked in any text: the credentials of `https://user:pass@host/`
/// (shown as `https://***@host/`) and the values of query or fragment parameters named like a
/// secret (`?token=***`). Every URL in the text is looked at, whatever its scheme, also inside a
/// JSON string (with `/` escaped as `\/` or not) and inside another URL's path or query.
///
/// It runs where text leaves the program (the console, the files podcast writes for the user to
/// read), not where a message is made: a message that forgets to hide a URL's secrets then cannot
/// leak them. The state store keeps URLs whole, since they are needed to fetch; `export` writes
/// them as subscribed, since that file is the user's own.
public enum SecretRedactor {
    /// What is shown in place of a secret.
    public static let mask = "***"

    /// `text` with every URL's secrets masked; `text` itself, unchanged, when it holds none.
    public static func redacted(_ text: String) -> String {
        var text = text
        let rewritten = text.withUTF8 { rewrite(UnsafeRawBufferPointer($0)) }
        return rewritten.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Hands `bytes` (UTF-8) to `output` with every URL's secrets masked: `bytes` themselves when
    /// they hold none. A URL parted between two calls is not seen whole, so each call must get
    /// whole lines or whole JSON values.
    public static func redact(_ bytes: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) -> Void) {
        guard let rewritten = rewrite(bytes) else { return output(bytes) }
        rewritten.withUnsafeBytes(output)
    }

    /// Overwrites every URL's secrets in `bytes` (UTF-8) with `*`, byte for byte: for text that
    /// must keep its length, the process's own arguments (`ProcessArguments`). True when there
    /// was a secret.
    @discardableResult
    public static func blank(_ bytes: UnsafeMutableRawBufferPointer) -> Bool {
        let secrets = secrets(in: UnsafeRawBufferPointer(bytes))
        for secret in secrets {
            for index in secret { bytes[index] = UInt8(ascii: "*") }
        }
        return !secrets.isEmpty
    }

    // MARK: Which parameters are secrets

    /// How a parameter's name is matched against a rule's, after ASCII lower-casing and trimming
    /// `_` from both ends (Akamai's `__token__`).
    private enum Match {
        /// The whole name (`key`, but not `monkey` or `keyword`).
        case whole
        /// The whole name or its end (`token`, and so `access_token`, `authToken`, `X-Amz-Security-Token`).
        case suffix
    }

    /// The one table of parameter names whose values are secrets.
    private static let secretParameters: [(name: [UInt8], match: Match)] = [
        // Bearer and session tokens, OAuth's access, refresh and ID tokens, S3's security token.
        ("token", .suffix), ("jwt", .whole),
        ("session", .suffix), ("sessionid", .suffix), ("session_id", .suffix), ("sessid", .suffix),
        ("auth", .whole), ("authorization", .whole),
        // API keys.
        ("key", .whole), ("apikey", .suffix), ("api_key", .suffix), ("api-key", .suffix), ("_key", .suffix), ("-key", .suffix),
        // Passwords and shared secrets (OAuth's `client_secret`).
        ("password", .suffix), ("passwd", .suffix), ("pass", .whole), ("pwd", .whole), ("secret", .suffix),
        // Signed URLs: S3 and Google Cloud Storage (`X-Amz-Signature`, `X-Goog-Credential`), Azure
        // SAS (`sig`), CloudFront (`Signature`, `Policy`, `Key-Pair-Id`), Akamai (`hdnts`, `hdnea`).
        ("signature", .suffix), ("sig", .whole), ("credential", .suffix), ("hmac", .whole),
        ("policy", .whole), ("key-pair-id", .whole), ("hdnts", .whole), ("hdnea", .whole),
    ].map { (Array($0.utf8), $1) }

    /// Whether the parameter named by `bytes[range]` holds a secret.
    private static func isSecret(_ bytes: UnsafeRawBufferPointer, name range: Range<Int>) -> Bool {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end && bytes[start] == underscore { start += 1 }
        while end > start && bytes[end - 1] == underscore { end -= 1 }
        let count = end - start
        return secretParameters.contains { rule in
            let length = rule.name.count
            guard count == length || rule.match == .suffix && count > length else { return false }
            for offset in 0..<length where lowercased(bytes[end - length + offset]) != rule.name[offset] { return false }
            return true
        }
    }

    // MARK: Finding URLs

    /// The masked copy of `bytes`, or nil when they hold no secret.
    private static func rewrite(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let secrets = secrets(in: bytes)
        return secrets.isEmpty ? nil : masking(bytes, secrets)
    }

    /// Where the secrets of every URL in `bytes` are.
    private static func secrets(in bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        // Credentials need an `@`, parameters a `?` or a `#`: text without any (nearly all a
        // table or a message) is passed on after three memchr runs, without looking for URLs.
        guard contains(bytes, atSign) || contains(bytes, questionMark) || contains(bytes, hashSign) else { return [] }
        var secrets: [Range<Int>] = []
        var index = 0
        while let colon = find(colonSign, in: bytes, from: index) {
            index = colon + 1
            guard let authority = authorityStart(bytes, colon: colon) else { continue }
            let end = urlEnd(bytes, from: authority)
            collectSecrets(bytes, authority: authority, end: end, into: &secrets)
            // Not past the URL: another one may sit in its path or query (a tracking redirect's target).
            index = authority
        }
        return secrets
    }

    /// Where the authority of a URL whose `://` (or, in JSON, `:\/\/`) starts at `colon` begins;
    /// nil when no scheme character comes before the colon or no slashes come after it.
    private static func authorityStart(_ bytes: UnsafeRawBufferPointer, colon: Int) -> Int? {
        guard colon > 0, isSchemeByte(bytes[colon - 1]) else { return nil }
        if colon + 2 < bytes.count && bytes[colon + 1] == slash && bytes[colon + 2] == slash { return colon + 3 }
        if colon + 4 < bytes.count && bytes[colon + 1] == backslash && bytes[colon + 2] == slash
            && bytes[colon + 3] == backslash && bytes[colon + 4] == slash {
            return colon + 5
        }
        return nil
    }

    /// Where the URL running from `start` ends: at white space, a quote, an angle bracket or a
    /// backslash that escapes no `/`, less the punctuation that ends a sentence or closes a
    /// bracket around it (`(see https://host/?token=x).`).
    private static func urlEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte <= space || byte == 0x7F || byte == quote || byte == apostrophe || byte == less || byte == greater || byte == backtick { break }
            if byte == backslash && !(end + 1 < bytes.count && bytes[end + 1] == slash) { break }
            end += 1
        }
        while end > start, trailingPunctuation.contains(bytes[end - 1]) { end -= 1 }
        return end
    }

    /// Adds the ranges of the secrets of the URL whose authority starts at `start` and which ends
    /// at `end`: its credentials, then the values of its secret parameters.
    private static func collectSecrets(_ bytes: UnsafeRawBufferPointer, authority start: Int, end: Int, into secrets: inout [Range<Int>]) {
        var authorityEnd = start
        while authorityEnd < end, !endsAuthority(bytes[authorityEnd]) { authorityEnd += 1 }
        if let at = (start..<authorityEnd).last(where: { bytes[$0] == atSign }), at > start {
            secrets.append(start..<at)
        }
        guard let query = (authorityEnd..<end).first(where: { bytes[$0] == questionMark || bytes[$0] == hashSign }) else { return }
        var pairStart = query + 1
        while pairStart < end {
            var pairEnd = pairStart
            while pairEnd < end && bytes[pairEnd] != ampersand && bytes[pairEnd] != hashSign { pairEnd += 1 }
            if let value = secretValue(bytes, pair: pairStart..<pairEnd) { secrets.append(value) }
            pairStart = pairEnd + 1
        }
    }

    /// The value of the `name=value` pair in `pair` when its name is a secret's and it is not
    /// empty. A name after `&amp;` (a URL copied out of HTML) loses the `amp;`. The value ends
    /// before punctuation, a symbol or a space beyond ASCII: a closing quotation mark, an
    /// ellipsis or an arrow after the URL is no part of it.
    private static func secretValue(_ bytes: UnsafeRawBufferPointer, pair: Range<Int>) -> Range<Int>? {
        guard let equals = pair.first(where: { bytes[$0] == equalsSign }) else { return nil }
        var nameStart = pair.lowerBound
        if equals - nameStart > 4 && bytes[nameStart..<nameStart + 4].elementsEqual("amp;".utf8) { nameStart += 4 }
        let valueEnd = (equals + 1..<pair.upperBound).first { bytes[$0] >= 0x80 && endsValue(bytes, at: $0) } ?? pair.upperBound
        guard valueEnd > equals + 1, isSecret(bytes, name: nameStart..<equals) else { return nil }
        return equals + 1..<valueEnd
    }

    /// Whether the character whose UTF-8 starts at `index` (a byte from 0x80) is punctuation, a
    /// symbol or a space; false for a continuation byte and for letters.
    private static func endsValue(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Bool {
        guard bytes[index] >= 0xC0 else { return false }
        let character = UnsafeRawBufferPointer(rebasing: bytes[index..<min(index + 4, bytes.count)])
        guard let scalar = String(decoding: character, as: UTF8.self).unicodeScalars.first else { return false }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol,
             .spaceSeparator, .lineSeparator, .paragraphSeparator:
            return true
        default:
            return false
        }
    }

    /// `bytes` with each of `secrets` (overlapping or not, in any order) replaced by the mask.
    private static func masking(_ bytes: UnsafeRawBufferPointer, _ secrets: [Range<Int>]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        for secret in secrets.sorted(by: { $0.lowerBound < $1.lowerBound }) where secret.upperBound > copied {
            // A secret inside one already masked (a URL in a token's value) is masked with it.
            if secret.lowerBound >= copied {
                result.append(contentsOf: bytes[copied..<secret.lowerBound])
                result.append(contentsOf: mask.utf8)
            }
            copied = secret.upperBound
        }
        result.append(contentsOf: bytes[copied...])
        return result
    }

    // MARK: Bytes

    private static let atSign = UInt8(ascii: "@")
    private static let questionMark = UInt8(ascii: "?")
    private static let hashSign = UInt8(ascii: "#")
    private static let colonSign = UInt8(ascii: ":")
    private static let slash = UInt8(ascii: "/")
    private static let backslash = UInt8(ascii: "\\")
    private static let ampersand = UInt8(ascii: "&")
    private static let equalsSign = UInt8(ascii: "=")
    private static let underscore = UInt8(ascii: "_")
    private static let space = UInt8(ascii: " ")
    private static let quote = UInt8(ascii: "\"")
    private static let apostrophe = UInt8(ascii: "'")
    private static let less = UInt8(ascii: "<")
    private static let greater = UInt8(ascii: ">")
    private static let backtick = UInt8(ascii: "`")
    private static let trailingPunctuation = Array(".,;:!?)]}".utf8)

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == slash || byte == backslash || byte == questionMark || byte == hashSign
    }

    /// A letter, digit, `+`, `-` or `.`: what a scheme is made of.
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        let letter = byte | 0x20
        return (letter >= UInt8(ascii: "a") && letter <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    private static func contains(_ bytes: UnsafeRawBufferPointer, _ byte: UInt8) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return memchr(base, Int32(byte), bytes.count) != nil
    }

    /// The index of the first `byte` in `bytes` from `start`, found with memchr.
    private static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count,
              let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
