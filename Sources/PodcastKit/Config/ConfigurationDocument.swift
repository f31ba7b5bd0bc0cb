internal import TOMLKit

/// A configuration file read as TOML 1.0 (by toml++, through TOMLKit), as plain values with the
/// line each was written on. The one place that knows TOMLKit: its types never leave here.
struct ConfigurationDocument {
    /// A value as the settings read it.
    enum Value: Equatable {
        case string(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        case strings([String])
        /// Anything else: a table, a date, an array of other things (named for messages).
        case other(String)
    }

    /// One `key = value`: the table it is in (nil at the top), its key, its value and its line.
    struct Entry {
        var section: String?
        var key: String
        var value: Value
        var line: Int?
    }

    /// The entries, in no particular order.
    let entries: [Entry]
    /// Tables that hold something other than `key = value` (nested tables), named for messages.
    let nestedTables: [(name: String, line: Int?)]

    /// Parses `text`; a syntax error (duplicate keys among them) throws with its line.
    init(_ text: String, path: String) throws(ConfigurationError) {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(path: path, line: error.source.begin.line, reason: Self.sentence(error.description))
        } catch {
            throw ConfigurationError(path: path, line: nil, reason: "is not TOML (\(error))")
        }
        let lines = KeyLines(text)
        var entries: [Entry] = []
        var nested: [(name: String, line: Int?)] = []
        for (key, value) in table {
            if let section = value.table {
                for (inner, innerValue) in section {
                    if innerValue.table != nil {
                        nested.append(("\(key).\(inner)", lines.line(of: inner, in: key) ?? lines.header(key)))
                        continue
                    }
                    entries.append(Entry(section: key, key: inner, value: Self.value(innerValue), line: lines.line(of: inner, in: key)))
                }
            } else {
                entries.append(Entry(section: nil, key: key, value: Self.value(value), line: lines.line(of: key, in: nil)))
            }
        }
        self.entries = entries
        nestedTables = nested
    }

    /// The plain value of a TOML value.
    private static func value(_ value: any TOMLValueConvertible) -> Value {
        if let text = value.string { return .string(text) }
        if let boolean = value.bool { return .boolean(boolean) }
        if let integer = value.int { return .integer(integer) }
        if let number = value.double { return .number(number) }
        if let array = value.array {
            let strings = array.compactMap { $0.string }
            return strings.count == array.count ? .strings(strings) : .other("an array of \(array.first.map { "\($0.type)" } ?? "values")")
        }
        return .other("a \(value.type)")
    }

    /// toml++'s message as the middle of a one-line error: lower-cased start, no final period.
    private static func sentence(_ message: String) -> String {
        var text = message.trimmingWhitespace()
        while text.hasSuffix(".") { text.removeLast() }
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}

/// Where each key of a TOML document is written: TOMLKit does not say, so the text is scanned
/// for table headers (`[name]`) and the keys that start lines (`key =`, `"key" =`, `a.b =`).
/// Only used to name lines in messages; TOMLKit has already checked the syntax.
struct KeyLines {
    private var keys: [String: Int] = [:]
    private var headers: [String: Int] = [:]

    init(_ text: String) {
        var section: String?
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            let number = offset + 1
            if line.hasPrefix("[") && !line.hasPrefix("[[") {
                let name = line.dropFirst().prefix { $0 != "]" }.trimmingWhitespace()
                section = Self.unquoted(name)
                if headers[section ?? ""] == nil { headers[section ?? ""] = number }
                continue
            }
            guard let equals = line.firstIndex(of: "="), !line.hasPrefix("#") else { continue }
            let parts = line[..<equals].split(separator: ".").map { Self.unquoted($0.trimmingWhitespace()) }
            guard let key = parts.last, !key.isEmpty else { continue }
            let table = parts.count > 1 ? parts.dropLast().joined(separator: ".") : section
            let name = (table.map { $0 + "." } ?? "") + key
            if keys[name] == nil { keys[name] = number }
        }
    }

    /// The line of `key` in table `section` (nil: the top).
    func line(of key: String, in section: String?) -> Int? {
        keys[(section.map { $0 + "." } ?? "") + key]
    }

    /// The line of the header `[name]`.
    func header(_ name: String) -> Int? {
        headers[name]
    }

    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else { return text }
        return String(text.dropFirst().dropLast())
    }
}
