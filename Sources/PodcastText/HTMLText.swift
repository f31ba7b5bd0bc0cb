/// Turns episode descriptions, HTML or plain, into text for a terminal and for JSON.
public enum HTMLText {
    /// `html` without markup: tags dropped, `<br>` and block ends as line breaks (never more than one blank
    /// line in a row), `<li>` as "• ", script and style content removed, character references decoded
    /// (`&nbsp;` as a plain space), runs of spaces folded, each line and the whole trimmed. Text with no
    /// `<` or `&` comes back as it is, only trimmed. Runs in time linear in the input, whatever it holds.
    ///
    /// With `links` (show notes), a link to an `http(s)` or `mailto` address keeps it after its
    /// text, `text (https://…)`, as `LinkTarget` decides; without (a title), only its text stays.
    public static func plainText(_ html: String, links: Bool = true) -> String {
        var html = html
        return html.withUTF8 { plainText($0, links: links) }
    }

    /// `plainText` of the valid UTF-8 `html`, for text that is not a `String` yet: the result is
    /// the only string made.
    public static func plainText(_ html: UnsafeBufferPointer<UInt8>, links: Bool = true) -> String {
        guard html.contains(where: { $0 == Byte.lessThan || $0 == Byte.ampersand }) else {
            return String(trimmingWhitespace: html)
        }
        var converter = Converter(html, links: links)
        converter.run()
        return String(decoding: converter.output, as: UTF8.self)
    }

    /// What a link adds to its text in plain text: its address, unless the text already reads as
    /// that address (`https://example.com/` shown as `example.com`), or there is no text to attach
    /// it to (a linked picture), or the address is not one a reader can follow from a terminal
    /// (relative, `javascript:`, an anchor). Nil: nothing is added.
    public static func linkTarget(href: String, text: String) -> String? {
        let address = href.trimmingWhitespace()
        let lowered = address.lowercased()
        guard ["https://", "http://", "mailto:"].contains(where: lowered.hasPrefix),
            !address.contains(where: { $0.isWhitespace }),
            !text.trimmingWhitespace().isEmpty
        else { return nil }
        func bare(_ text: String) -> Substring {
            var bare = Substring(text.trimmingWhitespace().lowercased())
            for prefix in ["https://", "http://", "mailto:"] where bare.hasPrefix(prefix) {
                bare = bare.dropFirst(prefix.count)
                break
            }
            if bare.hasPrefix("www.") { bare = bare.dropFirst(4) }
            while bare.hasSuffix("/") { bare = bare.dropLast() }
            return bare
        }
        return bare(text) == bare(address) ? nil : address
    }

    /// One pass over the UTF-8 bytes. White space and line breaks are held back as pending and written
    /// only before the next visible character, which trims lines and the whole for free.
    private struct Converter {
        private let input: UnsafeBufferPointer<UInt8>
        private var position = 0
        private(set) var output: [UInt8] = []

        private var pendingSpace = false
        /// Breaks asked for by tags and by newlines in the source, kept apart so that the newline
        /// after a `<br>` in the source does not double it.
        private var pendingTagBreaks = 0
        private var pendingSourceBreaks = 0

        /// True from a list item's bullet to its first text: a `<p>` or newline there must not part them.
        private var bulletIsBare = false
        /// True from a list item's bullet to the end of its list.
        private var inListItems = false

        /// Where a search for a tag's `>` last ran off the end: any later search would too.
        private var noTagEndFrom = Int.max
        /// Cleared once a quoted attribute value runs off the end; from then on quotes are ignored,
        /// so no stretch of input is scanned for a tag's end twice.
        private var quotesAreTrusted = true

        /// Whether links keep their addresses.
        private let keepsLinks: Bool
        /// The open link: its address as written, and where its text begins in `output`.
        private var openLink: (href: String, textStart: Int)?

        init(_ input: UnsafeBufferPointer<UInt8>, links: Bool) {
            self.input = input
            keepsLinks = links
            output.reserveCapacity(input.count)
        }

        mutating func run() {
            while position < input.count {
                let byte = input[position]
                switch byte {
                case Byte.lessThan:
                    readMarkup()
                case Byte.ampersand:
                    readReference()
                default:
                    readTextByte(within: input.count)
                }
            }
            closeLink()
        }

        // MARK: Links

        /// At `<a …>`: ends a link left open (links do not nest) and opens this one, when it has
        /// an `href` between `start` and `end` (the tag's attributes).
        private mutating func openLink(attributesFrom start: Int, to end: Int) {
            guard keepsLinks else { return }
            closeLink()
            guard let href = Self.attribute(Byte.href, in: UnsafeBufferPointer(rebasing: input[start..<end])) else { return }
            openLink = (HTMLText.plainText(href, links: false), output.count)
        }

        /// At `</a>` (or the end): the open link's address after its text, when `linkTarget`
        /// says so; on the same line as the text, whatever breaks wait to follow it.
        private mutating func closeLink() {
            guard let link = openLink else { return }
            openLink = nil
            let text = String(decoding: output[link.textStart...], as: UTF8.self)
            guard let target = HTMLText.linkTarget(href: link.href, text: text) else { return }
            let pending = (pendingSpace, pendingTagBreaks, pendingSourceBreaks)
            pendingTagBreaks = 0
            pendingSourceBreaks = 0
            pendingSpace = true
            emitVisible(UInt8(ascii: "("))
            output.append(contentsOf: target.utf8)
            output.append(UInt8(ascii: ")"))
            (pendingSpace, pendingTagBreaks, pendingSourceBreaks) = pending
        }

        /// The raw value of the attribute `name` (lowercase) among a tag's `attributes`, or nil.
        /// Quoted or not, as HTML allows; character references are left for the caller.
        private static func attribute(_ name: [UInt8], in attributes: UnsafeBufferPointer<UInt8>) -> String? {
            var index = 0
            let count = attributes.count
            while index < count {
                while index < count, Byte.isSpace(attributes[index]) || attributes[index] == Byte.slash { index += 1 }
                let nameStart = index
                while index < count, !Byte.isSpace(attributes[index]), attributes[index] != Byte.equals,
                    attributes[index] != Byte.slash
                {
                    index += 1
                }
                let nameEnd = index
                while index < count, Byte.isSpace(attributes[index]) { index += 1 }
                var value: Range<Int>?
                if index < count, attributes[index] == Byte.equals {
                    index += 1
                    while index < count, Byte.isSpace(attributes[index]) { index += 1 }
                    if index < count, attributes[index] == Byte.doubleQuote || attributes[index] == Byte.singleQuote {
                        let quote = attributes[index]
                        let valueStart = index + 1
                        index = valueStart
                        while index < count, attributes[index] != quote { index += 1 }
                        value = valueStart..<index
                        index += 1
                    } else {
                        let valueStart = index
                        while index < count, !Byte.isSpace(attributes[index]) { index += 1 }
                        value = valueStart..<index
                    }
                }
                if nameEnd - nameStart == name.count, Byte.hasPrefixIgnoringCase(attributes, at: nameStart, name) {
                    return value.map { String(decoding: UnsafeBufferPointer(rebasing: attributes[$0]), as: UTF8.self) }
                }
                if nameEnd == nameStart && value == nil { index += 1 }
            }
            return nil
        }

        /// Handles one byte (or a no-break space or C1 control's two) of ordinary text, and the
        /// plain text after it up to `limit`.
        private mutating func readTextByte(within limit: Int) {
            let byte = input[position]
            position += 1
            switch byte {
            case Byte.newline:
                addSourceBreak()
            case Byte.carriageReturn:
                if position < input.count, input[position] == Byte.newline { position += 1 }
                addSourceBreak()
            case 0...0x20, 0x7F:
                pendingSpace = true
            case 0xC2 where position < input.count && (0x80...0xA0).contains(input[position]):
                // U+00A0 reads as a space; C1 controls (U+0080–U+009F) could drive a terminal, so they go too.
                position += 1
                pendingSpace = true
            default:
                emitVisible(byte)
                copyPlainRun(within: limit)
            }
        }

        /// After a visible byte, copies the visible text that follows it, single spaces between
        /// words included, up to the next byte that needs a look: what `emitVisible` would write
        /// byte by byte, as nothing is pending there.
        private mutating func copyPlainRun(within limit: Int) {
            var end = position
            while end < limit {
                if Byte.isPlainVisible(input[end]) {
                    end += 1
                } else if input[end] == Byte.space, end + 1 < limit, Byte.isPlainVisible(input[end + 1]) {
                    end += 2
                } else {
                    break
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[position..<end]))
            position = end
        }

        // MARK: Output

        private mutating func emitVisible(_ byte: UInt8) {
            if !output.isEmpty {
                let breaks = min(max(pendingTagBreaks, pendingSourceBreaks), 2)
                if breaks > 0 {
                    output.append(contentsOf: breaks == 2 ? Byte.blankLine : Byte.lineBreak)
                } else if pendingSpace {
                    output.append(Byte.space)
                }
            }
            pendingSpace = false
            pendingTagBreaks = 0
            pendingSourceBreaks = 0
            bulletIsBare = false
            output.append(byte)
        }

        private mutating func emitScalar(_ scalar: Unicode.Scalar) {
            switch scalar.value {
            case 0x0A, 0x0D: addSourceBreak()
            case 0..<0x20, 0x7F...0xA0: pendingSpace = true
            default: for byte in scalar.utf8 { emitVisible(byte) }
            }
        }

        private mutating func addSourceBreak() {
            if !bulletIsBare { pendingSourceBreaks = min(pendingSourceBreaks + 1, 2) }
        }

        // MARK: Markup

        /// At `<`: a comment, CDATA section, declaration, tag, or a `<` that is just text.
        private mutating func readMarkup() {
            let next = position + 1 < input.count ? input[position + 1] : 0
            if next == Byte.exclamationMark, starts(with: Byte.commentOpen) {
                position = end(of: Byte.commentClose, from: position + Byte.commentOpen.count)
            } else if next == Byte.exclamationMark, starts(with: Byte.cdataOpen) {
                readCDATA()
            } else if next == Byte.exclamationMark || next == Byte.questionMark {
                // Doctypes and processing instructions; unterminated, they run to the end as a browser reads them.
                position = findTagEnd(from: position + 2).map { $0 + 1 } ?? input.count
            } else if !readTag() {
                emitVisible(Byte.lessThan)
                position += 1
            }
        }

        /// Reads a start or end tag and acts on it; false (reading nothing) when the `<` does not open one,
        /// as in "a < b", "<3", "<https://example.com>" or "Name <name@example.com>".
        private mutating func readTag() -> Bool {
            let isEnd = position + 1 < input.count && input[position + 1] == Byte.slash
            let nameStart = position + (isEnd ? 2 : 1)
            guard nameStart < input.count, Byte.isASCIILetter(input[nameStart]) else { return false }
            var nameEnd = nameStart
            while nameEnd < input.count, Byte.isTagNameByte(input[nameEnd]) { nameEnd += 1 }
            guard input[nameEnd - 1] != Byte.colon,
                nameEnd == input.count || Byte.endsTagName(input[nameEnd]),
                let close = findTagEnd(from: nameEnd)
            else { return false }
            position = close + 1

            if nameEnd - nameStart == 1, input[nameStart] | 0x20 == Byte.lowercaseA {
                if isEnd { closeLink() } else { openLink(attributesFrom: nameEnd, to: close) }
                return true
            }
            switch TagRole.of(UnsafeBufferPointer(rebasing: input[nameStart..<nameEnd])) {
            case .inline:
                break
            case .lineBreak:
                if !bulletIsBare { pendingTagBreaks = min(pendingTagBreaks + 1, 2) }
            case .block(let breaks):
                if !bulletIsBare { pendingTagBreaks = max(pendingTagBreaks, breaks) }
            case .list:
                pendingTagBreaks = max(pendingTagBreaks, 1)
                inListItems = false
            case .listItem where isEnd:
                pendingTagBreaks = max(pendingTagBreaks, 1)
            case .listItem:
                if inListItems {
                    // Items are one to a line, even when each holds a paragraph.
                    pendingTagBreaks = 1
                    pendingSourceBreaks = min(pendingSourceBreaks, 1)
                } else {
                    pendingTagBreaks = max(pendingTagBreaks, 1)
                }
                for byte in Byte.bullet { emitVisible(byte) }
                pendingSpace = true
                inListItems = true
                bulletIsBare = true
            case .cell:
                pendingSpace = true
            case .rawText(let closing):
                // Script and style hold code, not text; unterminated, they run to the end.
                if !isEnd { skipRawText(closing: closing) }
            }
            return true
        }

        /// The index of the `>` closing a tag whose attributes start at `start`, or nil when there is none.
        /// Quotes count only after `=`, where HTML allows a quoted value.
        private mutating func findTagEnd(from start: Int) -> Int? {
            guard start < noTagEndFrom else { return nil }
            var index = start
            if quotesAreTrusted {
                var quote: UInt8?
                var previous: UInt8 = 0
                while index < input.count {
                    let byte = input[index]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == Byte.greaterThan {
                        return index
                    } else if (byte == Byte.doubleQuote || byte == Byte.singleQuote) && previous == Byte.equals {
                        quote = byte
                    }
                    if !Byte.isSpace(byte) { previous = byte }
                    index += 1
                }
                guard quote != nil else {
                    noTagEndFrom = start
                    return nil
                }
                quotesAreTrusted = false
                index = start
            }
            while index < input.count {
                if input[index] == Byte.greaterThan { return index }
                index += 1
            }
            noTagEndFrom = start
            return nil
        }

        /// Skips to just past `</closing…>`, or to the end.
        private mutating func skipRawText(closing: [UInt8]) {
            while position < input.count {
                if input[position] == Byte.lessThan, position + 1 < input.count, input[position + 1] == Byte.slash,
                    Byte.hasPrefixIgnoringCase(input, at: position + 2, closing)
                {
                    position = findTagEnd(from: position + 2).map { $0 + 1 } ?? input.count
                    return
                }
                position += 1
            }
        }

        /// A CDATA section's content is text, taken as it is but for white space.
        private mutating func readCDATA() {
            let contentEnd = index(of: Byte.cdataClose, from: position + Byte.cdataOpen.count) ?? input.count
            position += Byte.cdataOpen.count
            while position < contentEnd { readTextByte(within: contentEnd) }
            position = min(contentEnd + Byte.cdataClose.count, input.count)
        }

        // MARK: Character references

        /// At `&`: a numeric or named reference, or an `&` that is just text ("AT&T", "&unknown;").
        private mutating func readReference() {
            if position + 1 < input.count, input[position + 1] == Byte.hash, readNumericReference() { return }
            var nameEnd = position + 1
            while nameEnd < input.count, nameEnd - position <= 32, Byte.isASCIIAlphanumeric(input[nameEnd]) {
                nameEnd += 1
            }
            if nameEnd > position + 1, nameEnd < input.count, input[nameEnd] == Byte.semicolon,
                let scalar = HTMLEntities.scalar(named: UnsafeBufferPointer(rebasing: input[(position + 1)..<nameEnd]))
            {
                position = nameEnd + 1
                emitScalar(scalar)
                return
            }
            emitVisible(Byte.ampersand)
            position += 1
        }

        /// Reads `&#8217;` or `&#x2019;` (the `;` optional, as browsers allow); false when no digits follow.
        private mutating func readNumericReference() -> Bool {
            var index = position + 2
            let isHex = index < input.count && (input[index] | 0x20) == Byte.lowercaseX
            if isHex { index += 1 }
            let digitsStart = index
            var value: UInt32 = 0
            while index < input.count, let digit = Byte.digitValue(input[index], hex: isHex) {
                // Saturating just past the last code point keeps the value invalid however long the run.
                value = min(value * (isHex ? 16 : 10) + digit, 0x11_0000)
                index += 1
            }
            guard index > digitsStart else { return false }
            if index < input.count, input[index] == Byte.semicolon { index += 1 }
            position = index
            emitScalar(Self.referencedScalar(value))
            return true
        }

        /// The character a numeric reference means in HTML: 0x80–0x9F as Windows-1252 (what the
        /// authors meant by `&#146;`), and U+FFFD for zero, surrogates and values past U+10FFFF.
        private static func referencedScalar(_ value: UInt32) -> Unicode.Scalar {
            if (0x80...0x9F).contains(value), let mapped = Windows1252.scalar(UInt8(value)) { return mapped }
            guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
            return scalar
        }

        // MARK: Searching

        private func starts(with prefix: [UInt8]) -> Bool {
            input.count - position >= prefix.count && Byte.hasPrefixIgnoringCase(input, at: position, prefix)
        }

        /// The index of `pattern` at or after `start`; the patterns are a few bytes, so this is linear.
        private func index(of pattern: [UInt8], from start: Int) -> Int? {
            guard let first = pattern.first, input.count >= pattern.count else { return nil }
            var index = start
            while index <= input.count - pattern.count {
                if input[index] == first, Byte.hasPrefixIgnoringCase(input, at: index, pattern) { return index }
                index += 1
            }
            return nil
        }

        /// Just past `pattern` at or after `start`, or the end of the input.
        private func end(of pattern: [UInt8], from start: Int) -> Int {
            index(of: pattern, from: start).map { $0 + pattern.count } ?? input.count
        }
    }

    /// What a tag does to the text around it.
    private enum TagRole {
        case inline
        case lineBreak
        case block(breaks: Int)
        case list
        case listItem
        case cell
        case rawText(closing: [UInt8])

        static func of(_ name: UnsafeBufferPointer<UInt8>) -> TagRole {
            key(name).flatMap { roles[$0] } ?? .inline
        }

        private static let roles: PackedNameTable<TagRole> = {
            var roles: [(key: UInt64, value: TagRole)] = []
            func add(_ names: [String], _ role: TagRole) {
                for name in names {
                    if let key = Array(name.utf8).withUnsafeBufferPointer(key) { roles.append((key, role)) }
                }
            }
            add(["br"], .lineBreak)
            add(["p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr", "table"], .block(breaks: 2))
            add(
                ["div", "dl", "dt", "dd", "tr", "section", "article", "header", "footer", "figure",
                 "figcaption", "address", "aside", "nav", "main"],
                .block(breaks: 1))
            add(["ul", "ol"], .list)
            add(["li"], .listItem)
            add(["td", "th"], .cell)
            add(["script"], .rawText(closing: Array("script".utf8)))
            add(["style"], .rawText(closing: Array("style".utf8)))
            return PackedNameTable(roles)
        }()

        /// Up to ten letters and digits packed six bits each, case folded: a lookup that allocates nothing.
        private static func key(_ name: UnsafeBufferPointer<UInt8>) -> UInt64? {
            guard name.count <= 10 else { return nil }
            var key: UInt64 = 0
            for byte in name {
                let lower = byte | 0x20
                let code: UInt8
                if lower &- UInt8(ascii: "a") < 26 {
                    code = lower - UInt8(ascii: "a") + 1
                } else if byte &- UInt8(ascii: "0") < 10 {
                    code = byte - UInt8(ascii: "0") + 27
                } else {
                    return nil
                }
                key = key << 6 | UInt64(code)
            }
            return key
        }
    }

    /// The bytes the converter looks for.
    private enum Byte {
        static let lessThan = UInt8(ascii: "<")
        static let greaterThan = UInt8(ascii: ">")
        static let ampersand = UInt8(ascii: "&")
        static let semicolon = UInt8(ascii: ";")
        static let hash = UInt8(ascii: "#")
        static let exclamationMark = UInt8(ascii: "!")
        static let questionMark = UInt8(ascii: "?")
        static let slash = UInt8(ascii: "/")
        static let colon = UInt8(ascii: ":")
        static let equals = UInt8(ascii: "=")
        static let doubleQuote = UInt8(ascii: "\"")
        static let singleQuote = UInt8(ascii: "'")
        static let lowercaseX = UInt8(ascii: "x")
        static let lowercaseA = UInt8(ascii: "a")
        static let href: [UInt8] = Array("href".utf8)
        static let space = UInt8(ascii: " ")
        static let newline = UInt8(ascii: "\n")
        static let carriageReturn = UInt8(ascii: "\r")

        static let lineBreak: [UInt8] = [newline]
        static let blankLine: [UInt8] = [newline, newline]
        static let bullet: [UInt8] = Array("•".utf8)
        static let commentOpen: [UInt8] = Array("<!--".utf8)
        static let commentClose: [UInt8] = Array("-->".utf8)
        static let cdataOpen: [UInt8] = Array("<![cdata[".utf8)
        static let cdataClose: [UInt8] = Array("]]>".utf8)

        static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }

        /// Whether `byte` is written as it is wherever it is met in text: printable ASCII other
        /// than space and the `<` and `&` that start markup and references, and every byte of
        /// other characters but 0xC2, which leads the no-break space and the C1 controls (a
        /// continuation byte is never 0xC2).
        static func isPlainVisible(_ byte: UInt8) -> Bool {
            plainVisible[Int(byte >> 6)] >> UInt64(byte & 63) & 1 != 0
        }

        /// `isPlainVisible` as a table of 256 bits, one word per 64 byte values.
        private static let plainVisible: [UInt64] = (0..<4).map { word in
            (0..<64).reduce(UInt64(0)) { bits, bit in
                let byte = word * 64 + bit
                let plain = byte > 0x20 && byte < 0x7F && byte != Int(lessThan) && byte != Int(ampersand)
                    || byte >= 0x80 && byte != 0xC2
                return plain ? bits | 1 << UInt64(bit) : bits
            }
        }

        static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
            isASCIILetter(byte) || byte &- UInt8(ascii: "0") < 10
        }

        /// Letters, digits and the `-`, `_`, `.` and `:` of custom and namespaced tags (`<o:p>` from Word).
        static func isTagNameByte(_ byte: UInt8) -> Bool {
            isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".") || byte == colon
        }

        static func endsTagName(_ byte: UInt8) -> Bool { isSpace(byte) || byte == slash || byte == greaterThan }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == space || byte == UInt8(ascii: "\t") || byte == newline || byte == carriageReturn
                || byte == 0x0C
        }

        static func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
            if byte &- UInt8(ascii: "0") < 10 { return UInt32(byte - UInt8(ascii: "0")) }
            let lower = byte | 0x20
            if hex, lower &- UInt8(ascii: "a") < 6 { return UInt32(lower - UInt8(ascii: "a") + 10) }
            return nil
        }

        /// True when `lowercase` appears at `index`, ASCII letters compared in either case.
        static func hasPrefixIgnoringCase(
            _ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ lowercase: [UInt8]
        ) -> Bool {
            guard bytes.count - index >= lowercase.count else { return false }
            var offset = 0
            while offset < lowercase.count {
                let byte = bytes[index + offset]
                let expected = lowercase[offset]
                if byte != expected && !(isASCIILetter(byte) && byte | 0x20 == expected) { return false }
                offset += 1
            }
            return true
        }
    }
}
