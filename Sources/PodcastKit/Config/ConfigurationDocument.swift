import PodcastTOML

/// A configuration file read as TOML 1.0 (by `TOMLParser`), as plain values with the line each
/// was written on: the settings need only strings, numbers, booleans and lists of strings, one
/// level of sections, and a line to name in every message.
struct ConfigurationDocument {
    /// The value of a TOML value as settings read it (`SettingValue`); nil for what no setting
    /// takes (a table, a date, an array of other things than strings, an integer past `Int`).
    static func settingValue(_ value: TOMLValue) -> SettingValue? {
        switch value {
        case .string(let text): return .text(text)
        case .integer(let number): return Int(exactly: number).map { .integer(Int64($0)) }
        case .float(let number): return .number(number)
        case .boolean(let flag): return .boolean(flag)
        case .array(let items):
            let strings = items.compactMap { item -> String? in
                guard case .string(let text) = item else { return nil }
                return text
            }
            return strings.count == items.count ? .list(strings) : nil
        default: return nil
        }
    }

    /// One `key = value`: the table it is in (nil at the top), its key, its value and its line.
    struct Entry {
        var section: String?
        var key: String
        /// Nil for a value no setting takes.
        var value: SettingValue?
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
                entries.append(Entry(section: nil, key: entry.key, value: Self.settingValue(entry.value), line: entry.line))
                continue
            }
            for inner in section.entries {
                if case .table(let table) = inner.value {
                    nested.append(("\(entry.key).\(inner.key)", table.headerLine ?? inner.line))
                } else {
                    entries.append(Entry(section: entry.key, key: inner.key, value: Self.settingValue(inner.value), line: inner.line))
                }
            }
        }
        self.entries = entries
        nestedTables = nested
    }
}
