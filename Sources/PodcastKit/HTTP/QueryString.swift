/// Builds `a=1&b=x%20y` query strings, percent-encoding everything but RFC 3986 unreserved bytes.
public enum QueryString {
    /// The encoded query for `pairs`, in the given order.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// `text` with every byte outside `A–Z a–z 0–9 - . _ ~` written as `%XX`.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }
}
