/// A well-formedness error libxml2 reported, where it was, and whether parsing could go on.
struct XMLProblem: Sendable, Equatable {
    /// Line in the document, from 1.
    var line: Int
    /// Column in the line, from 1 (0 when libxml2 did not say).
    var column: Int
    /// libxml2's message, on one line.
    var message: String
}
