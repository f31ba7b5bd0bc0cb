/// A configuration file read as TOML 1.0 (by `TOMLParser`), as plain values with the line each
/// was written on: the settings need only strings, numbers, booleans and lists of strings, one
/// level of sections, and a line to name in every message.
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

        /// The plain value of a TOML value.
        init(_ value: TOMLValue) {
            switch value {
            case .string(let text): self = .string(text)
            case .integer(let number): self = Int(exactly: number).map(Value.integer) ?? .other(value.kind)
            case .float(let number): self = .number(number)
            case .boolean(let flag): self = .boolean(flag)
            case .array(let items):
                let strings = items.compactMap { item -> String? in
                    guard case .string(let text) = item else { return nil }
                    return text
                }
                self = strings.count == items.count ? .strings(strings) : .other("an array of \(items.first?.kind ?? "values")")
            default: self = .other(value.kind)
            }
        }

        /// The value as a setting reads it; nil for what no setting takes (a table, a date).
        var setting: SettingValue? {
            switch self {
            case .string(let text): .text(text)
            case .integer(let number): .integer(Int64(number))
            case .number(let number): .number(number)
            case .boolean(let flag): .boolean(flag)
            case .strings(let list): .list(list)
            case .other: nil
            }
        }
    }

    /// One `key = value`: the table it is in (nil at the top), its key, its value and its line.
    struct Entry {
        var section: String?
        var key: String
        var value: Value
        var line: Int
    }

    /// The entries, in document order table by table (not always line order).
    let entries: [Entry]
    /// Tables that hold something other than `key = value` (nested tables), named for messages.
    let nestedTables: [(name: String, line: Int)]

    /// Parses `text`; a syntax error (duplicate keys among them) throws with its line and column.
    init(_ text: String, path: String) throws(ConfigurationError) {
        let table: TOMLTable
        do {
            table = try TOMLParser.parse(text)
        } catch {
            // The column goes in the reason: messages keep their `file:line:` form.
            throw ConfigurationError(path: path, line: error.line, reason: "column \(error.column): \(error.message)")
        }
        var entries: [Entry] = []
        var nested: [(name: String, line: Int)] = []
        for entry in table.entries {
            guard case .table(let section) = entry.value else {
                entries.append(Entry(section: nil, key: entry.key, value: Value(entry.value), line: entry.line))
                continue
            }
            for inner in section.entries {
                if case .table(let table) = inner.value {
                    nested.append(("\(entry.key).\(inner.key)", table.headerLine ?? inner.line))
                } else {
                    entries.append(Entry(section: entry.key, key: inner.key, value: Value(inner.value), line: inner.line))
                }
            }
        }
        self.entries = entries
        nestedTables = nested
    }
}
