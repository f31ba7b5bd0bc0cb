extension Substring {
    /// The text without leading and trailing white space (including newlines).
    public func trimmingWhitespace() -> String {
        String(self).trimmingWhitespace()
    }
}

extension String {
    /// The string without leading and trailing white space (including newlines).
    ///
    /// Runs in the feed parser's inner loop: white space is found on the UTF-8 bytes
    /// (`ScalarKind`), and a string that is already trimmed, as nearly every field is, is not copied.
    public func trimmingWhitespace() -> String {
        var text = self
        let (start, end, count) = text.withUTF8 { bytes in
            let kept = Self.nonWhitespaceRange(bytes)
            return (kept.lowerBound, kept.upperBound, bytes.count)
        }
        guard start > 0 || end < count else { return self }
        let bytes = utf8
        return String(self[bytes.index(bytes.startIndex, offsetBy: start)..<bytes.index(bytes.startIndex, offsetBy: end)])
    }

    /// The UTF-8 `bytes` without leading and trailing white space: what
    /// `String(decoding: bytes, as: UTF8.self).trimmingWhitespace()` returns, without making the
    /// untrimmed string first.
    public init(trimmingWhitespace bytes: UnsafeBufferPointer<UInt8>) {
        self = String(decoding: UnsafeBufferPointer(rebasing: bytes[Self.nonWhitespaceRange(bytes)]), as: UTF8.self)
    }

    /// Whether the valid UTF-8 `bytes` are empty or only white space.
    public static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        nonWhitespaceRange(bytes).isEmpty
    }

    /// Where the valid UTF-8 `bytes` are not white space: from the first character that is not to
    /// the end of the last one; empty when all are.
    private static func nonWhitespaceRange(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        var start = 0
        while start < bytes.count {
            let (kind, length) = ScalarKind.at(start, in: bytes)
            guard kind == .whitespace else { break }
            start += length
        }
        var end = bytes.count
        while end > start {
            // Back to the first byte of the last character (continuation bytes are 10xxxxxx).
            var first = end - 1
            while first > start, bytes[first] & 0xC0 == 0x80 { first -= 1 }
            guard ScalarKind.at(first, in: bytes).kind == .whitespace else { break }
            end = first
        }
        return start..<end
    }

    /// The string with control characters replaced and every run of white space folded into
    /// one space, trimmed: safe to print on one line of a terminal.
    public func singleLine() -> String {
        if Self.isPlainLine(utf8) { return self }
        var text = self
        return text.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var pendingSpace = false
            // Where the run of visible characters being read starts: runs are copied whole (a
            // title in German or Japanese has no plain-ASCII shortcut, and a copy per character
            // cost more than the rest).
            var run: Int?
            var index = 0
            while index < bytes.count {
                let (kind, length) = ScalarKind.at(index, in: bytes)
                switch kind {
                case .whitespace, .control:
                    if let start = run {
                        result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                        run = nil
                    }
                    pendingSpace = !result.isEmpty
                case .visible, .bidiControl:
                    if run == nil {
                        if pendingSpace {
                            result.append(UInt8(ascii: " "))
                            pendingSpace = false
                        }
                        run = index
                    }
                }
                index += length
            }
            if let start = run { result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...])) }
            return String(decoding: result, as: UTF8.self)
        }
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

    /// The string without bidirectional embeddings, overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069), which would reorder the text around them on a terminal: for every table
    /// and line written there. Text without them (no 0xE2 byte) is returned as it is.
    public func removingBidiControls() -> String {
        guard utf8.contains(0xE2) else { return self }
        var text = self
        return text.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let (kind, length) = ScalarKind.at(index, in: bytes)
                if kind != .bidiControl {
                    result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + length)]))
                }
                index += length
            }
            return String(decoding: result, as: UTF8.self)
        }
    }
}
