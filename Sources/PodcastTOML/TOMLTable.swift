/// A table of a read document: its keys in the order they were first written, each with the line
/// it was written on, because the configuration reader names `file:line` for every setting.
public struct TOMLTable: Sendable, Equatable {
    /// One key of the table with its value and the line its key was (first) written on.
    public struct Entry: Sendable, Equatable {
        /// The key, unquoted and unescaped; one part of a dotted key.
        public var key: String
        /// The value.
        public var value: TOMLValue
        /// The line, from 1.
        public var line: Int
    }

    /// The entries in document order.
    public let entries: [Entry]
    /// The line of the `[header]` or `[[header]]` that defined the table; nil for the document
    /// itself, inline tables and tables that only dotted keys or deeper headers made.
    public let headerLine: Int?
    private let positions: [String: Int]

    /// A table of `entries` (their keys distinct), defined by a header on `headerLine` if any.
    init(entries: [Entry], headerLine: Int?) {
        self.entries = entries
        self.headerLine = headerLine
        var positions: [String: Int] = [:]
        positions.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() { positions[entry.key] = position }
        self.positions = positions
    }

    /// The entry for `key`, if the table has it.
    public func entry(_ key: String) -> Entry? {
        positions[key].map { entries[$0] }
    }

    /// The value for `key`, if the table has it.
    public subscript(key: String) -> TOMLValue? {
        entry(key)?.value
    }
}
