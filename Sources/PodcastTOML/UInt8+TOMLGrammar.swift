/// The ASCII bytes TOML's grammar names.
extension UInt8 {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22
    static let hash: UInt8 = 0x23
    static let apostrophe: UInt8 = 0x27
    static let plus: UInt8 = 0x2B
    static let comma: UInt8 = 0x2C
    static let minus: UInt8 = 0x2D
    static let dot: UInt8 = 0x2E
    static let colon: UInt8 = 0x3A
    static let equals: UInt8 = 0x3D
    static let openBracket: UInt8 = 0x5B
    static let backslash: UInt8 = 0x5C
    static let closeBracket: UInt8 = 0x5D
    static let underscore: UInt8 = 0x5F
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D

    /// `0`–`9`.
    var isDigit: Bool { self >= 0x30 && self <= 0x39 }

    /// A character of a bare key: `A-Z a-z 0-9 _ -`.
    var isBareKeyCharacter: Bool {
        isDigit || (self | 0x20 >= 0x61 && self | 0x20 <= 0x7A) || self == .underscore || self == .minus
    }
}
