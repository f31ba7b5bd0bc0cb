/// A JSON document built in the contract's key order, with explicit nulls.
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// `.string(text)`, or `.null` for nil.
    static func string(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }

    /// `.int(number)`, or `.null` for nil.
    static func int(_ number: Int?) -> JSONValue {
        number.map { .int($0) } ?? .null
    }

    /// The document as text: indented by two spaces when `pretty`, else on one line.
    func serialized(pretty: Bool) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        let newline = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let closing = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            guard !values.isEmpty else { output += "[]"; return }
            output += "["
            for (index, value) in values.enumerated() {
                output += (index == 0 ? "" : ",") + newline
                value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            output += closing + "]"
        case .object(let members):
            guard !members.isEmpty else { output += "{}"; return }
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                output += (index == 0 ? "" : ",") + newline
                Self.writeString(key, to: &output)
                output += pretty ? ": " : ":"
                value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            output += closing + "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        // Most strings need no escaping: append them whole. 0xE2 starts U+2028 and U+2029.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
