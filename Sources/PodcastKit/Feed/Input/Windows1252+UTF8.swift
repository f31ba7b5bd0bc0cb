import Glibc
import PodcastText

extension Windows1252 {
    /// The UTF-8 encoding of `byte` (0x80 or more) read as Windows-1252, U+FFFD for the five bytes
    /// the encoding leaves undefined.
    static func utf8(_ byte: UInt8) -> [UInt8] {
        highBytesAsUTF8[Int(byte - 0x80)]
    }

    private static let highBytesAsUTF8: [[UInt8]] = (0x80...0xFF).map { byte in
        Array(String(Character(scalar(UInt8(byte)) ?? "\u{FFFD}")).utf8)
    }

    /// `text` (UTF-8) with each C1 control character (U+0080–U+009F) replaced by the Windows-1252
    /// character of the same byte. Such controls never belong in feed text: they are Windows-1252
    /// punctuation (curly quotes, dashes, …) that was decoded as Latin-1, or encoded as UTF-8 from
    /// such a decoding. The five bytes Windows-1252 leaves undefined stay as they are.
    ///
    /// Calls `body` with the text replaced, or with `text` itself when it has none to replace
    /// (almost all text: nothing is copied then).
    static func withC1ControlsReplaced<Result>(
        _ text: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        guard let first = firstC1Control(text, from: 0) else { return body(text) }
        var output = Array(text[..<first])
        output.reserveCapacity(text.count + 8)
        var index = first
        while let control = firstC1Control(text, from: index) {
            output.append(contentsOf: text[index..<control])
            if scalar(text[control + 1]) != nil {
                output.append(contentsOf: utf8(text[control + 1]))
            } else {
                output.append(contentsOf: text[control...(control + 1)])
            }
            index = control + 2
        }
        output.append(contentsOf: text[index...])
        return output.withUnsafeBufferPointer(body)
    }

    /// Where the next C1 control character (0xC2 then 0x80–0x9F) at or after `start` begins.
    /// Searches with memchr: almost all text has none.
    private static func firstC1Control(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index < bytes.count - 1 {
            guard let found = memchr(base + index, 0xC2, bytes.count - 1 - index) else { return nil }
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if (0x80...0x9F).contains(bytes[position + 1]) { return position }
            index = position + 1
        }
        return nil
    }
}
