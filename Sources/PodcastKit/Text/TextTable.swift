/// An aligned table of plain text fitted to a terminal width by shrinking chosen columns,
/// cutting their cells with "…", before anything else.
public struct TextTable: Sendable {
    /// Which side of a column cells line up on.
    public enum Alignment: Sendable {
        case left, right
    }

    /// One column: its header and how it may shrink.
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

        /// Creates a column.
        public init(_ header: String, alignment: Alignment = .left, minWidth: Int = 0, shrinkStage: Int = 0) {
            self.header = header
            self.alignment = alignment
            self.minWidth = minWidth
            self.shrinkStage = shrinkStage
        }
    }

    /// The columns, left to right.
    public var columns: [Column]
    /// The rows; each has one cell per column. Cells are folded onto one line when rendered.
    public var rows: [[String]]
    /// The space between columns.
    public static let gap = "  "

    /// Creates a table.
    public init(columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    /// The header line and one line per row, each at most `width` columns wide (nil: no limit),
    /// without trailing spaces.
    public func render(width: Int?) -> [String] {
        let cells = rows.map { $0.map { $0.singleLine() } }
        var widths = columns.enumerated().map { index, column in
            cells.reduce(DisplayWidth.of(column.header)) { max($0, DisplayWidth.of($1[index])) }
        }
        if let width {
            shrink(&widths, toFit: width)
        }
        let lines = [columns.map(\.header)] + cells
        return lines.map { line in
            let text = columns.indices.map { index in
                let cell = DisplayWidth.truncate(line[index], to: widths[index])
                let isLast = index == columns.count - 1
                return isLast && columns[index].alignment == .left
                    ? cell : DisplayWidth.pad(cell, to: widths[index], alignment: columns[index].alignment)
            }.joined(separator: Self.gap)
            let clipped = width.map { DisplayWidth.truncate(text, to: $0) } ?? text
            return String(clipped.reversed().drop { $0 == " " }.reversed())
        }
    }

    /// Takes columns from the widest shrinkable column of the earliest stage until the row fits.
    private func shrink(_ widths: inout [Int], toFit width: Int) {
        var total = widths.reduce(0, +) + Self.gap.count * (columns.count - 1)
        let stages = Set(columns.map(\.shrinkStage)).filter { $0 > 0 }.sorted()
        for stage in stages {
            while total > width {
                let candidates = columns.indices.filter {
                    columns[$0].shrinkStage == stage && widths[$0] > columns[$0].minWidth
                }
                guard let widest = candidates.max(by: { widths[$0] < widths[$1] }) else { break }
                widths[widest] -= 1
                total -= 1
            }
        }
    }
}
