/// A table while its document is being read, and the rules of what may still be added to it.
///
/// Tables are reference types here, and only here, because a `[header]` makes a table deep in
/// the tree the current one, and later keys go into it in place; copying value types along the
/// path for every key would make a large document quadratic. `freeze()` turns the finished tree
/// into `TOMLTable` values, which are all that leave the parser.
final class TOMLTableDraft {
    /// How a table came to be, which decides whether a header or dotted key may define it again.
    enum Origin {
        /// Named only as the parent of a header (`a` of `[a.b]`): a later `[a]` may define it.
        case implicit
        /// Defined by its own `[header]` or `[[header]]`: no second header may define it.
        case header
        /// Made by a dotted key (`a.b = 1` makes `a`): only dotted keys of its section add to
        /// it, though headers may define sub-tables under it.
        case dotted
        /// An inline table's own contents, frozen into a value when its `}` is read.
        case inline
    }

    /// A key's part as the document wrote it, with where, for errors and lines.
    struct KeyPart {
        /// The key, unquoted and unescaped.
        var name: String
        /// Where it was written.
        var position: TOMLScanner.Position
    }

    /// What a key holds while the document is read.
    private enum Slot {
        case value(TOMLValue)
        case table(TOMLTableDraft)
        /// An array of tables made by `[[header]]`s; the last one takes the keys that follow.
        case tables([TOMLTableDraft])
    }

    private struct Entry {
        var key: String
        var line: Int
        var slot: Slot
    }

    private(set) var origin: Origin
    private var headerLine: Int?
    /// Tables and arrays above this one; the parser's cap on nesting.
    let depth: Int
    /// How deep tables under the root may nest.
    let maximumDepth: Int
    private var entries: [Entry] = []
    private var positions: [String: Int] = [:]

    /// An empty table `depth` levels down, none of whose tables may go deeper than `maximumDepth`.
    init(origin: Origin, depth: Int, maximumDepth: Int, headerLine: Int? = nil) {
        self.origin = origin
        self.depth = depth
        self.maximumDepth = maximumDepth
        self.headerLine = headerLine
    }

    // MARK: Key-value pairs

    /// Adds `key = value`: a dotted key's leading parts make tables, or go into tables that
    /// dotted keys made; the last part must be new.
    func define(_ key: [KeyPart], _ value: TOMLValue) throws(TOMLError) {
        var table = self
        for (index, part) in key.dropLast().enumerated() {
            table = try table.dottedChild(part, named: key[...index])
        }
        guard let last = key.last else { return }
        if let existing = table.entry(last.name) {
            throw conflict(at: last, "the key \(Self.name(key)) is already defined on line \(existing.line)")
        }
        table.add(last, .value(value))
    }

    /// The table a dotted key's part `part` names, made if missing.
    private func dottedChild(_ part: KeyPart, named path: ArraySlice<KeyPart>) throws(TOMLError) -> TOMLTableDraft {
        guard let existing = entry(part.name) else { return try makeChild(part, origin: .dotted) }
        switch existing.slot {
        case .table(let child) where child.origin == .dotted:
            return child
        case .table:
            throw conflict(at: part, "the table \(Self.name(path)) is defined by a header on line \(existing.line); a dotted key cannot add to it")
        case .tables:
            throw conflict(at: part, "\(Self.name(path)) is an array of tables (line \(existing.line)); a dotted key cannot add to it")
        case .value(let value):
            throw conflict(at: part, "the key \(Self.name(path)) is already defined on line \(existing.line) as \(value.kind), not a table")
        }
    }

    // MARK: Headers

    /// The table `[key]` defines, from the document's root table: it may exist only as the
    /// implicit parent of an earlier header.
    func defineTable(_ key: [KeyPart], line: Int) throws(TOMLError) -> TOMLTableDraft {
        let parent = try headerParent(of: key)
        guard let last = key.last else { return self }
        guard let existing = parent.entry(last.name) else {
            let table = try parent.makeChild(last, origin: .header)
            table.headerLine = line
            return table
        }
        switch existing.slot {
        case .table(let table) where table.origin == .implicit:
            table.origin = .header
            table.headerLine = line
            return table
        case .table(let table) where table.origin == .header:
            throw conflict(at: last, "the table [\(Self.name(key, quoted: false))] is already defined on line \(table.headerLine ?? existing.line)")
        case .table:
            throw conflict(at: last, "the table [\(Self.name(key, quoted: false))] is already defined by dotted keys on line \(existing.line)")
        case .tables:
            throw conflict(at: last, "\(Self.name(key)) is an array of tables (line \(existing.line)); write [[\(Self.name(key, quoted: false))]] to add to it")
        case .value(let value):
            throw conflict(at: last, "the key \(Self.name(key)) is already defined on line \(existing.line) as \(value.kind), not a table")
        }
    }

    /// A new table at the end of the array of tables `[[key]]` names, from the document's root
    /// table; the array is made on the first such header.
    func appendTable(_ key: [KeyPart], line: Int) throws(TOMLError) -> TOMLTableDraft {
        let parent = try headerParent(of: key)
        guard let last = key.last else { return self }
        let table = try TOMLTableDraft(origin: .header, depth: parent.childDepth(at: last), maximumDepth: maximumDepth, headerLine: line)
        guard let index = parent.positions[last.name] else {
            parent.add(last, .tables([table]))
            return table
        }
        if parent.append(table, toArrayAt: index) { return table }
        let line = parent.entries[index].line
        switch parent.entries[index].slot {
        case .value(.array):
            throw conflict(at: last, "\(Self.name(key)) is already defined on line \(line) as a static array; [[\(Self.name(key, quoted: false))]] cannot add to it")
        case .value(let value):
            throw conflict(at: last, "the key \(Self.name(key)) is already defined on line \(line) as \(value.kind), not an array of tables")
        case .table, .tables:
            throw conflict(at: last, "the table [\(Self.name(key, quoted: false))] is already defined on line \(line); it cannot become an array of tables")
        }
    }

    /// Appends `table` to the array of tables at `index`; false if that entry is something else.
    private func append(_ table: TOMLTableDraft, toArrayAt index: Int) -> Bool {
        guard case .tables(var tables) = entries[index].slot else { return false }
        // Out of the slot first, so the array is uniquely referenced and not copied on each append.
        entries[index].slot = .tables([])
        tables.append(table)
        entries[index].slot = .tables(tables)
        return true
    }

    /// The table a header's leading parts lead to, through tables of any origin and the last
    /// table of arrays of tables, making implicit tables where nothing is yet.
    private func headerParent(of key: [KeyPart]) throws(TOMLError) -> TOMLTableDraft {
        var table = self
        for (index, part) in key.dropLast().enumerated() {
            guard let existing = table.entry(part.name) else {
                table = try table.makeChild(part, origin: .implicit)
                continue
            }
            switch existing.slot {
            case .table(let child):
                table = child
            case .tables(let tables):
                guard let child = tables.last else { return table }
                table = child
            case .value(let value):
                throw conflict(at: part, "the key \(Self.name(key[...index])) is already defined on line \(existing.line) as \(value.kind), not a table")
            }
        }
        return table
    }

    // MARK: Storage

    private func entry(_ key: String) -> Entry? {
        positions[key].map { entries[$0] }
    }

    private func add(_ part: KeyPart, _ slot: Slot) {
        positions[part.name] = entries.count
        entries.append(Entry(key: part.name, line: part.position.line, slot: slot))
    }

    /// A new empty table under `part`.
    private func makeChild(_ part: KeyPart, origin: Origin) throws(TOMLError) -> TOMLTableDraft {
        let child = try TOMLTableDraft(origin: origin, depth: childDepth(at: part), maximumDepth: maximumDepth)
        add(part, .table(child))
        return child
    }

    /// The depth of a table under this one, refused past the cap (deep trees would exhaust the
    /// stack when freezing or comparing them).
    private func childDepth(at part: KeyPart) throws(TOMLError) -> Int {
        guard depth < maximumDepth else {
            throw conflict(at: part, "tables and arrays are nested more than \(maximumDepth) deep")
        }
        return depth + 1
    }

    /// The finished table, as a value.
    func freeze() -> TOMLTable {
        TOMLTable(
            entries: entries.map { entry in
                let value: TOMLValue
                switch entry.slot {
                case .value(let plain): value = plain
                case .table(let table): value = .table(table.freeze())
                case .tables(let tables): value = .array(tables.map { .table($0.freeze()) })
                }
                return TOMLTable.Entry(key: entry.key, value: value, line: entry.line)
            },
            headerLine: headerLine
        )
    }

    private func conflict(at part: KeyPart, _ message: String) -> TOMLError {
        TOMLError(line: part.position.line, column: part.position.column, message)
    }

    /// A key as messages write it: `"a.b"`, or `a.b` inside a header's brackets.
    private static func name(_ key: some Collection<KeyPart>, quoted: Bool = true) -> String {
        let joined = key.map(\.name).joined(separator: ".")
        return quoted ? "\"\(joined)\"" : joined
    }
}
