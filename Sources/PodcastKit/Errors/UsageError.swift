/// The user asked for something that cannot be done as asked (exit code 64): a bad option
/// value, a number not in the last listing, a misconfigured environment variable.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line: what is wrong with the input and what to do instead.
    public var description: String

    /// Creates an error with its one-line message.
    public init(_ description: String) {
        self.description = description
    }
}
