/// A gzip member that decodes to a great many zero bytes from a small body: the "gzip bomb" a
/// hostile server sends with `Content-Encoding: gzip` and the compressed length only.
///
/// One dynamic-Huffman deflate block (RFC 1951 §3.2.7) whose codes give "copy 258 bytes from
/// distance 1" two bits, the best deflate can do (about 1:1030), so 200 MiB of zeros take about
/// 200 KB. Made by hand because the test support links no zlib.
public enum GzipBomb {
    /// The gzip member for `count` zero bytes.
    public static func zeros(count: Int) -> [UInt8] {
        precondition(count >= 1)
        var bits = BitWriter()
        bits.bytes = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]
        bits.write(1, count: 1)  // BFINAL
        bits.write(2, count: 2)  // BTYPE 10: dynamic Huffman codes
        bits.write(286 - 257, count: 5)  // HLIT: literal/length codes 0…285
        bits.write(1 - 1, count: 5)  // HDIST: one distance code
        // Code length code lengths, in the order RFC 1951 sends them, up to symbol 1 (18 entries).
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
        bits.write(UInt32(order.count - 4), count: 4)  // HCLEN
        // Code length alphabet: 18 (a run of zeros) gets "0", 1 gets "10", 2 gets "11".
        let codeLengthLengths = [18: 1, 1: 2, 2: 2]
        for symbol in order {
            bits.write(UInt32(codeLengthLengths[symbol] ?? 0), count: 3)
        }
        let (one, two, zeros) = ((code: 0b10, length: 2), (code: 0b11, length: 2), (code: 0b0, length: 1))
        func zeroRun(_ run: Int) {
            bits.writeCode(zeros.code, length: zeros.length)
            bits.write(UInt32(run - 11), count: 7)
        }
        // Literal/length lengths: 0 → 2, 1…255 → 0, 256 → 2, 257…284 → 0, 285 → 1; distance 0 → 1.
        bits.writeCode(two.code, length: two.length)
        zeroRun(138)
        zeroRun(117)
        bits.writeCode(two.code, length: two.length)
        zeroRun(28)
        bits.writeCode(one.code, length: one.length)
        bits.writeCode(one.code, length: one.length)
        // Canonical codes: 285 (length 258) "0", literal 0 "10", end of block "11"; distance 1 "0".
        bits.writeCode(0b10, length: 2)  // the one literal zero the copies repeat
        let copies = (count - 1) / 258
        for _ in 0..<copies {
            bits.writeCode(0b0, length: 1)
            bits.writeCode(0b0, length: 1)
        }
        for _ in 0..<(count - 1 - copies * 258) {
            bits.writeCode(0b10, length: 2)
        }
        bits.writeCode(0b11, length: 2)
        bits.flush()
        var member = bits.bytes
        member += littleEndian(crc32OfZeros(count))
        member += littleEndian(UInt32(truncatingIfNeeded: count))
        return member
    }

    /// CRC-32 of `count` zero bytes without running over them: feeding a zero byte is a linear map
    /// of the register, raised to the `count`th power by squaring (as zlib's crc32_combine does).
    static func crc32OfZeros(_ count: Int) -> UInt32 {
        typealias Matrix = [UInt32]
        func times(_ matrix: Matrix, _ vector: UInt32) -> UInt32 {
            var sum: UInt32 = 0
            for bit in 0..<32 where vector & (1 << UInt32(bit)) != 0 { sum ^= matrix[bit] }
            return sum
        }
        func product(_ outer: Matrix, _ inner: Matrix) -> Matrix { inner.map { times(outer, $0) } }
        // One zero bit: shift right, folding in the reflected polynomial when bit 0 was set.
        var zeroBit = Matrix(repeating: 0, count: 32)
        zeroBit[0] = 0xEDB8_8320
        for bit in 1..<32 { zeroBit[bit] = 1 << UInt32(bit - 1) }
        var power = zeroBit
        for _ in 0..<3 { power = product(power, power) }  // eight bits: one zero byte
        var register: UInt32 = 0xFFFF_FFFF
        var remaining = count
        while remaining > 0 {
            if remaining & 1 == 1 { register = times(power, register) }
            power = product(power, power)
            remaining >>= 1
        }
        return register ^ 0xFFFF_FFFF
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Deflate's bit order: fields least significant bit first, Huffman codes most significant first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt8 = 0
        private var used = 0

        /// `count` low bits of `value`, least significant first.
        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count { push(value >> UInt32(bit) & 1 == 1) }
        }

        /// A Huffman code of `length` bits, most significant first.
        mutating func writeCode(_ code: Int, length: Int) {
            for bit in stride(from: length - 1, through: 0, by: -1) { push(code >> bit & 1 == 1) }
        }

        /// The last partial byte, padded with zero bits.
        mutating func flush() {
            if used > 0 { bytes.append(current) }
            current = 0
            used = 0
        }

        private mutating func push(_ set: Bool) {
            if set { current |= 1 << UInt8(used) }
            used += 1
            if used == 8 { flush() }
        }
    }
}
