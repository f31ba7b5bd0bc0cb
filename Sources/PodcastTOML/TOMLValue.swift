/// One TOML value, as the specification's types: the configuration reader matches on it.
public enum TOMLValue: Sendable, Equatable {
    /// A string, escapes resolved.
    case string(String)
    /// A 64-bit signed integer (TOML requires that range exactly).
    case integer(Int64)
    /// A 64-bit float, `inf` and `nan` included.
    case float(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// A date and time with an offset.
    case offsetDateTime(TOMLOffsetDateTime)
    /// A date and time without an offset.
    case localDateTime(TOMLLocalDateTime)
    /// A date alone.
    case localDate(TOMLLocalDate)
    /// A time of day alone.
    case localTime(TOMLLocalTime)
    /// An array, static (`[1, 2]`) or of tables (`[[name]]`); its items may differ in type.
    case array([TOMLValue])
    /// A table: a header, a dotted key's parent or an inline table.
    case table(TOMLTable)

    /// The type's name as the specification writes it, for messages (`an integer`).
    var kind: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .offsetDateTime: "an offset date-time"
        case .localDateTime: "a local date-time"
        case .localDate: "a local date"
        case .localTime: "a local time"
        case .array: "an array"
        case .table: "a table"
        }
    }
}
