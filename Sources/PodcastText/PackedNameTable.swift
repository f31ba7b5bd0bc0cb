/// A table from short names packed into a 64-bit word (`HTMLEntities`, the tag roles of
/// `HTMLText`) to values: open addressing, with a multiplicative hash of the word. A `Dictionary`
/// hashed each key through SipHash, which cost more than the rest of reading an entity or a tag
/// (a long feed's show notes look up hundreds of thousands).
struct PackedNameTable<Value> {
    private var keys: [UInt64]
    private var values: [Value?]
    /// How far a hashed key is shifted down to a slot: 64 minus the bits of the table's size.
    private let shift: UInt64

    /// A table of `entries`, whose keys are distinct and not zero (zero marks an empty slot); it
    /// is at most half full.
    init(_ entries: [(key: UInt64, value: Value)]) {
        var bits = 4
        while 1 << bits < entries.count * 2 { bits += 1 }
        shift = UInt64(64 - bits)
        keys = Array(repeating: 0, count: 1 << bits)
        values = Array(repeating: nil, count: 1 << bits)
        for (key, value) in entries {
            precondition(key != 0, "PackedNameTable: zero marks an empty slot")
            var slot = slot(of: key)
            while keys[slot] != 0 { slot = (slot + 1) & (keys.count - 1) }
            keys[slot] = key
            values[slot] = value
        }
    }

    /// The value of `key`, or nil when the table has none.
    subscript(key: UInt64) -> Value? {
        var slot = slot(of: key)
        while true {
            let found = keys[slot]
            if found == key { return values[slot] }
            if found == 0 { return nil }
            slot = (slot + 1) & (keys.count - 1)
        }
    }

    private func slot(of key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }
}

extension PackedNameTable: Sendable where Value: Sendable {}
