/// FNV-1a: a hash that is the same in every run and on every machine (Swift's `Hasher` is not),
/// for file names derived from URLs and identities.
public enum StableHash {
    /// 16 hexadecimal digits for `text`.
    public static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
