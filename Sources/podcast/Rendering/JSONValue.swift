/// A JSON document built in the contract's key order, with explicit nulls.
enum JSONValue {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// An array of `count` elements, each written straight to the writer when its turn comes, so
    /// that a listing of thousands of episodes never exists whole, as values or as text.
    case streamedArray(count: Int, element: (Int, inout JSONWriter) -> Void)

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
        var text: [UInt8] = []
        write(pretty: pretty) { text.append(contentsOf: $0) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the document as `serialized(pretty:)` would return it, handing it to `output` in
    /// pieces of about 64 KiB of UTF-8, in order.
    func write(pretty: Bool, to output: (UnsafeRawBufferPointer) -> Void) {
        var writer = JSONWriter(pretty: pretty)
        write(to: &writer, output: output)
        writer.handOn(to: output, all: true)
    }

    private func write(to writer: inout JSONWriter, output: (UnsafeRawBufferPointer) -> Void) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .int(let value): writer.int(value)
        case .number(let value): writer.number(value)
        case .string(let value): writer.string(value)
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer, output: output) }
            writer.endArray()
        case .streamedArray(let count, let element):
            writer.beginArray()
            for index in 0..<count {
                element(index, &writer)
                writer.handOn(to: output)
            }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for (key, value) in members {
                writer.key(key)
                value.write(to: &writer, output: output)
            }
            writer.endObject()
        }
    }
}
