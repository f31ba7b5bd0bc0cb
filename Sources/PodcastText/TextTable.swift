/// An aligned table of plain text fitted to a terminal width: chosen columns shrink first (their
/// cells cut with "…"), then columns that are useless when cut (URLs) are left out whole.
public struct TextTable: Sendable {
    /// Which side of a column cells line up on.
    public enum Alignment: Sendable {
        /// Cells start at the column's left edge (text).
        case left
        /// Cells end at the column's right edge (numbers).
        case right
    }

    /// One column: its header and how it gives way when the table is too wide.
    public struct Column: Sendable {
        /// The header text.
        public var header: String
        /// Which side cells line up on.
        public var alignment: Alignment
        /// The narrowest this column may become when shrinking.
        public var minWidth: Int
        /// When this column gives up width: columns of stage 1 shrink first, then stage 2, and so
        /// on; stage 0 never shrinks.
        public var shrinkStage: Int
        /// Never cut, but left out whole when the table cannot fit otherwise (the rightmost first).
        public var droppable: Bool
        /// Left out whole when no row has anything in it: its header alone says nothing, and its
        /// width is better spent on the columns that shrink.
        public var omittedWhenEmpty: Bool

        /// Creates a column.
        public init(
            _ header: String, alignment: Alignment = .left, minWidth: Int = 0, shrinkStage: Int = 0,
            droppable: Bool = false, omittedWhenEmpty: Bool = false
        ) {
            self.header = header
            self.alignment = alignment
            self.minWidth = minWidth
            self.shrinkStage = shrinkStage
            self.droppable = droppable
            self.omittedWhenEmpty = omittedWhenEmpty
        }
    }

    /// A rendered table.
    public struct Output: Sendable, Equatable {
        /// The header line and one line per row, without trailing spaces.
        public var lines: [String]
        /// Headers of the columns left out to fit the width (not those left out for being empty).
        public var droppedColumns: [String]
        /// Where each column starts on a line (display columns from its start), by the columns'
        /// order; nil for a column left out.
        public var columnStarts: [Int?]
    }

    /// The columns, left to right.
    public var columns: [Column]
    /// The rows; each has one cell per column. Cells are folded onto one line, without
    /// bidirectional controls (a U+202E in a title would turn the rest of its row around), when
    /// rendered.
    public var rows: [[String]]
    /// The space between columns.
    public static let gap = "  "

    /// Creates a table.
    public init(columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    /// The table with every line at most `width` columns wide (nil: no limit).
    public func render(width: Int?) -> Output {
        let cells = rows.map { $0.map { $0.singleLine().removingBidiControls() } }
        let naturalWidths = columns.indices.map { index in
            cells.reduce(DisplayWidth.of(columns[index].header)) { max($0, DisplayWidth.of($1[index])) }
        }
        let empty = columns.indices.filter { index in columns[index].omittedWhenEmpty && cells.allSatisfy { $0[index].isEmpty } }
        var visible = columns.indices.filter { !empty.contains($0) }
        var widths = naturalWidths
        if let width {
            while true {
                widths = naturalWidths
                let total = shrink(&widths, visible: visible, toFit: width)
                guard total > width, let dropped = visible.last(where: { columns[$0].droppable }) else { break }
                visible.removeAll { $0 == dropped }
            }
        }
        let lines = ([columns.map(\.header)] + cells).map { line in
            let text = visible.map { index in
                let cell = DisplayWidth.truncate(line[index], to: widths[index])
                let isLast = index == visible.last
                return isLast && columns[index].alignment == .left
                    ? cell : DisplayWidth.pad(cell, to: widths[index], alignment: columns[index].alignment)
            }.joined(separator: Self.gap)
            var clipped = width.map { DisplayWidth.truncate(text, to: $0) } ?? text
            while clipped.utf8.last == UInt8(ascii: " ") { clipped.removeLast() }
            return clipped
        }
        let dropped = columns.indices.filter { !visible.contains($0) && !empty.contains($0) }.map { columns[$0].header }
        var starts = [Int?](repeating: nil, count: columns.count)
        var start = 0
        for index in visible {
            starts[index] = start
            start += widths[index] + Self.gap.count
        }
        return Output(lines: lines, droppedColumns: dropped, columnStarts: starts)
    }

    /// Takes columns from the widest shrinkable visible column of the earliest stage until the
    /// row fits; returns the resulting row width.
    private func shrink(_ widths: inout [Int], visible: [Int], toFit width: Int) -> Int {
        var total = visible.reduce(0) { $0 + widths[$1] } + Self.gap.count * (visible.count - 1)
        let stages = Set(visible.map { columns[$0].shrinkStage }).filter { $0 > 0 }.sorted()
        for stage in stages {
            while total > width {
                let candidates = visible.filter { columns[$0].shrinkStage == stage && widths[$0] > columns[$0].minWidth }
                guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
                widths[widest] -= 1
                total -= 1
            }
        }
        return total
    }
}
