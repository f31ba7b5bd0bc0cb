extension Substring {
    /// The text without leading and trailing white space (including newlines).
    public func trimmingWhitespace() -> String {
        String(self).trimmingWhitespace()
    }
}

extension String {
    /// The string without leading and trailing white space (including newlines).
    ///
    /// Runs in the feed parser's inner loop: ASCII white space is skipped on the UTF-8 bytes, and
    /// only an edge that is non-ASCII (a no-break space, say) takes the slower Unicode path.
    public func trimmingWhitespace() -> String {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, Self.isASCIIWhitespace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, Self.isASCIIWhitespace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        let trimmed = self[start..<end]
        let first = trimmed.unicodeScalars.first
        let last = trimmed.unicodeScalars.last
        guard first?.isASCII == false || last?.isASCII == false else {
            // Already trimmed, as nearly every URL and field is: no copy.
            return start == bytes.startIndex && end == bytes.endIndex ? self : String(trimmed)
        }
        guard let from = trimmed.unicodeScalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let to = trimmed.unicodeScalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(trimmed[from...to])
    }

    /// The UTF-8 `bytes` without leading and trailing white space: what
    /// `String(decoding: bytes, as: UTF8.self).trimmingWhitespace()` returns, without making the
    /// untrimmed string first.
    init(trimmingWhitespace bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        var end = bytes.count
        while start < end, Self.isASCIIWhitespace(bytes[start]) { start += 1 }
        while end > start, Self.isASCIIWhitespace(bytes[end - 1]) { end -= 1 }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        // Only an edge that is not ASCII (a no-break space, say) can still be white space.
        self = start < end && (bytes[start] >= 0x80 || bytes[end - 1] >= 0x80) ? text.trimmingWhitespace() : text
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    /// The string with control characters replaced and every run of white space folded into
    /// one space, trimmed: safe to print on one line of a terminal.
    public func singleLine() -> String {
        if Self.isPlainLine(utf8) { return self }
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.append(" ")
                pendingSpace = false
            }
            result.append(scalar)
        }
        return String(result)
    }

    /// True for printable ASCII with single inner spaces and none at the ends: already one line.
    private static func isPlainLine(_ bytes: String.UTF8View) -> Bool {
        var previousWasSpace = true
        for byte in bytes {
            guard byte >= 0x20 && byte < 0x7F else { return false }
            let isSpace = byte == 0x20
            if isSpace && previousWasSpace { return false }
            previousWasSpace = isSpace
        }
        return !previousWasSpace || bytes.isEmpty
    }
}
