/// Reads a TOML 1.0 document (https://toml.io/en/v1.0.0) into a `TOMLTable`.
///
/// One pass over the UTF-8 bytes, so the time is linear in the size of the document; arrays,
/// inline tables and tables may nest at most `maximumDepth` deep, so a hostile file cannot
/// exhaust the stack. The first error ends the reading.
public struct TOMLParser {
    /// How deep arrays and tables may nest: far beyond any configuration, far below the stack.
    static let maximumDepth = 128

    private var scanner: TOMLScanner
    private let root: TOMLTableDraft
    /// The table the latest header opened, which takes the key-value pairs that follow it.
    private var current: TOMLTableDraft

    private init(_ bytes: [UInt8]) {
        scanner = TOMLScanner(bytes)
        root = TOMLTableDraft(origin: .header, depth: 0, maximumDepth: Self.maximumDepth)
        current = root
    }

    /// The document in `text`.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(Array(text.utf8))
    }

    /// The document in `bytes`, read as UTF-8: broken UTF-8 is refused, a leading byte-order mark
    /// is skipped.
    static func parse(_ bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(bytes)
        try parser.readDocument()
        return parser.root.freeze()
    }

    // MARK: Lines

    private mutating func readDocument() throws(TOMLError) {
        while true {
            try scanner.skipWhitespaceCommentsAndNewlines()
            guard let byte = scanner.current else { return }
            if byte == .openBracket {
                try readHeader()
                try expectEndOfLine(after: "the table header")
            } else {
                let key = try readKey()
                try current.define(key, try readValueAfterEquals(depth: current.depth + key.count))
                try expectEndOfLine(after: "the value")
            }
        }
    }

    /// After a header or a key-value pair: only whitespace and a comment may end the line.
    private mutating func expectEndOfLine(after what: String) throws(TOMLError) {
        scanner.skipWhitespace()
        try scanner.skipComment()
        guard scanner.current != nil else { return }
        guard try scanner.skipNewline() else {
            throw scanner.error("expected the end of the line after \(what), found \(scanner.found)")
        }
    }

    /// `[a.b]` or `[[a.b]]`, which makes its table the current one.
    private mutating func readHeader() throws(TOMLError) {
        let line = scanner.position.line
        scanner.advance()
        let isArray = scanner.current == .openBracket
        if isArray { scanner.advance() }
        let key = try readKey()
        let closing = isArray ? "\"]]\"" : "\"]\""
        guard scanner.current == .closeBracket, !isArray || scanner.peek(1) == .closeBracket else {
            throw scanner.error("expected \(closing) after the table name, found \(scanner.found)")
        }
        scanner.advance(by: isArray ? 2 : 1)
        current = isArray ? try root.appendTable(key, line: line) : try root.defineTable(key, line: line)
    }

    // MARK: Keys

    /// A key, bare, quoted or dotted (`a."b.c".d`), with the whitespace around it.
    private mutating func readKey() throws(TOMLError) -> [TOMLTableDraft.KeyPart] {
        var parts: [TOMLTableDraft.KeyPart] = []
        while true {
            scanner.skipWhitespace()
            parts.append(try readSimpleKey())
            guard parts.count <= root.maximumDepth else {
                throw scanner.error("a key has more than \(root.maximumDepth) dotted parts")
            }
            scanner.skipWhitespace()
            guard scanner.current == .dot else { return parts }
            scanner.advance()
        }
    }

    /// One part of a key: bare (`A-Z a-z 0-9 _ -`) or a one-line string.
    private mutating func readSimpleKey() throws(TOMLError) -> TOMLTableDraft.KeyPart {
        let position = scanner.position
        switch scanner.current {
        case .quote, .apostrophe:
            return TOMLTableDraft.KeyPart(name: try scanner.readString(multiline: false), position: position)
        case let byte? where byte.isBareKeyCharacter:
            var name = ""
            while let byte = scanner.current, byte.isBareKeyCharacter {
                name.unicodeScalars.append(UnicodeScalar(byte))
                scanner.advance()
            }
            return TOMLTableDraft.KeyPart(name: name, position: position)
        default:
            throw scanner.error("expected a key, found \(scanner.found)")
        }
    }

    // MARK: Values

    /// `= value` after a key.
    private mutating func readValueAfterEquals(depth: Int) throws(TOMLError) -> TOMLValue {
        guard scanner.current == .equals else { throw scanner.error("expected \"=\" after the key, found \(scanner.found)") }
        scanner.advance()
        scanner.skipWhitespace()
        return try readValue(depth: depth)
    }

    /// A value `depth` levels below the root table.
    private mutating func readValue(depth: Int) throws(TOMLError) -> TOMLValue {
        switch scanner.current {
        case .quote, .apostrophe:
            return .string(try scanner.readString(multiline: true))
        case .openBracket:
            return try readArray(depth: depth)
        case .openBrace:
            return try readInlineTable(depth: depth)
        case .lineFeed, .carriageReturn, .hash, nil:
            throw scanner.error("expected a value, found \(scanner.found)")
        default:
            return try scanner.readBareValue()
        }
    }

    /// `[a, b, c]`: items of any types, across lines, with comments and a trailing comma.
    private mutating func readArray(depth: Int) throws(TOMLError) -> TOMLValue {
        try checkDepth(depth)
        scanner.advance()
        var items: [TOMLValue] = []
        while true {
            try scanner.skipWhitespaceCommentsAndNewlines()
            if scanner.current == .closeBracket { break }
            items.append(try readValue(depth: depth + 1))
            try scanner.skipWhitespaceCommentsAndNewlines()
            if scanner.current == .comma {
                scanner.advance()
            } else if scanner.current != .closeBracket {
                throw scanner.error("expected \",\" or \"]\" in the array, found \(scanner.found)")
            }
        }
        scanner.advance()
        return .array(items)
    }

    /// `{ a = 1, b.c = 2 }`: on one line, no trailing comma, never extended afterwards (it
    /// becomes a value at once, which no later key or header can open).
    private mutating func readInlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        try checkDepth(depth)
        scanner.advance()
        let table = TOMLTableDraft(origin: .inline, depth: depth, maximumDepth: root.maximumDepth)
        scanner.skipWhitespace()
        if scanner.current == .closeBrace {
            scanner.advance()
            return .table(table.freeze())
        }
        while true {
            let key = try readKey()
            try table.define(key, try readValueAfterEquals(depth: depth + key.count))
            scanner.skipWhitespace()
            switch scanner.current {
            case .closeBrace:
                scanner.advance()
                return .table(table.freeze())
            case .comma:
                scanner.advance()
                scanner.skipWhitespace()
                if scanner.current == .closeBrace { throw scanner.error("an inline table may not end with a comma") }
            case .lineFeed, .carriageReturn:
                throw scanner.error("an inline table must close on the line it opens on")
            default:
                throw scanner.error("expected \",\" or \"}\" in the inline table, found \(scanner.found)")
            }
        }
    }

    private func checkDepth(_ depth: Int) throws(TOMLError) {
        guard depth <= root.maximumDepth else {
            throw scanner.error("tables and arrays are nested more than \(root.maximumDepth) deep")
        }
    }
}
