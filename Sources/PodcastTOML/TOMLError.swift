/// Why a TOML document was refused, and where: the configuration reader turns it into a
/// `file:line` message, so the place is part of the error rather than of its text.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, counted in Unicode scalars (a tab counts as one).
    public var column: Int
    /// What is wrong, as a short lower-case phrase: `expected "=" after the key`.
    public var message: String

    /// The error `message` at `line`:`column`.
    init(line: Int, column: Int, _ message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// `line:column: message`.
    public var description: String { "\(line):\(column): \(message)" }
}
