/// What separates SHA-256 from SHA-384/512 in the compression function: the word size, the
/// number of rounds (one constant each) and the rotation amounts. The rounds themselves are shared.
protocol SHA2Word: FixedWidthInteger, UnsignedInteger {
    /// K, one constant per round (FIPS 180-4 §4.2).
    static var sha2RoundConstants: [Self] { get }
    /// The rotations of Σ0 and Σ1, and the rotations then shift of σ0 and σ1 (FIPS 180-4 §4.1).
    static var sha2Amounts: SHA2Amounts<Self> { get }
}

/// Rotation and shift amounts of the four SHA-2 mixing functions.
struct SHA2Amounts<Word> {
    var bigSigma0: (Word, Word, Word)
    var bigSigma1: (Word, Word, Word)
    var smallSigma0: (Word, Word, Word)
    var smallSigma1: (Word, Word, Word)
}

extension UInt32: SHA2Word {
    // SHA-256's constants are the high halves of SHA-512's first 64: both are the fractional
    // parts of the cube roots of the first primes.
    static let sha2RoundConstants = UInt64.sha2RoundConstants.prefix(64).map { UInt32(truncatingIfNeeded: $0 >> 32) }
    static var sha2Amounts: SHA2Amounts<UInt32> {
        SHA2Amounts(bigSigma0: (2, 13, 22), bigSigma1: (6, 11, 25), smallSigma0: (7, 18, 3), smallSigma1: (17, 19, 10))
    }
}

extension UInt64: SHA2Word {
    static let sha2RoundConstants: [UInt64] = [
        0x428a_2f98_d728_ae22, 0x7137_4491_23ef_65cd, 0xb5c0_fbcf_ec4d_3b2f, 0xe9b5_dba5_8189_dbbc,
        0x3956_c25b_f348_b538, 0x59f1_11f1_b605_d019, 0x923f_82a4_af19_4f9b, 0xab1c_5ed5_da6d_8118,
        0xd807_aa98_a303_0242, 0x1283_5b01_4570_6fbe, 0x2431_85be_4ee4_b28c, 0x550c_7dc3_d5ff_b4e2,
        0x72be_5d74_f27b_896f, 0x80de_b1fe_3b16_96b1, 0x9bdc_06a7_25c7_1235, 0xc19b_f174_cf69_2694,
        0xe49b_69c1_9ef1_4ad2, 0xefbe_4786_384f_25e3, 0x0fc1_9dc6_8b8c_d5b5, 0x240c_a1cc_77ac_9c65,
        0x2de9_2c6f_592b_0275, 0x4a74_84aa_6ea6_e483, 0x5cb0_a9dc_bd41_fbd4, 0x76f9_88da_8311_53b5,
        0x983e_5152_ee66_dfab, 0xa831_c66d_2db4_3210, 0xb003_27c8_98fb_213f, 0xbf59_7fc7_beef_0ee4,
        0xc6e0_0bf3_3da8_8fc2, 0xd5a7_9147_930a_a725, 0x06ca_6351_e003_826f, 0x1429_2967_0a0e_6e70,
        0x27b7_0a85_46d2_2ffc, 0x2e1b_2138_5c26_c926, 0x4d2c_6dfc_5ac4_2aed, 0x5338_0d13_9d95_b3df,
        0x650a_7354_8baf_63de, 0x766a_0abb_3c77_b2a8, 0x81c2_c92e_47ed_aee6, 0x9272_2c85_1482_353b,
        0xa2bf_e8a1_4cf1_0364, 0xa81a_664b_bc42_3001, 0xc24b_8b70_d0f8_9791, 0xc76c_51a3_0654_be30,
        0xd192_e819_d6ef_5218, 0xd699_0624_5565_a910, 0xf40e_3585_5771_202a, 0x106a_a070_32bb_d1b8,
        0x19a4_c116_b8d2_d0c8, 0x1e37_6c08_5141_ab53, 0x2748_774c_df8e_eb99, 0x34b0_bcb5_e19b_48a8,
        0x391c_0cb3_c5c9_5a63, 0x4ed8_aa4a_e341_8acb, 0x5b9c_ca4f_7763_e373, 0x682e_6ff3_d6b2_b8a3,
        0x748f_82ee_5def_b2fc, 0x78a5_636f_4317_2f60, 0x84c8_7814_a1f0_ab72, 0x8cc7_0208_1a64_39ec,
        0x90be_fffa_2363_1e28, 0xa450_6ceb_de82_bde9, 0xbef9_a3f7_b2c6_7915, 0xc671_78f2_e372_532b,
        0xca27_3ece_ea26_619c, 0xd186_b8c7_21c0_c207, 0xeada_7dd6_cde0_eb1e, 0xf57d_4f7f_ee6e_d178,
        0x06f0_67aa_7217_6fba, 0x0a63_7dc5_a2c8_98a6, 0x113f_9804_bef9_0dae, 0x1b71_0b35_131c_471b,
        0x28db_77f5_2304_7d84, 0x32ca_ab7b_40c7_2493, 0x3c9e_be0a_15c9_bebc, 0x431d_67c4_9c10_0d4c,
        0x4cc5_d4be_cb3e_42b6, 0x597f_299c_fc65_7e2a, 0x5fcb_6fab_3ad6_faec, 0x6c44_198c_4a47_5817,
    ]
    static var sha2Amounts: SHA2Amounts<UInt64> {
        SHA2Amounts(bigSigma0: (28, 34, 39), bigSigma1: (14, 18, 41), smallSigma0: (1, 8, 7), smallSigma1: (19, 61, 6))
    }
}

extension SHA2 {
    /// The initial chaining words (FIPS 180-4 §5.3).
    static func initialState(_ variant: Variant) -> State {
        switch variant {
        // Like the round constants, SHA-256's are the high halves of SHA-512's.
        case .sha256:
            let (a, b, c, d, e, f, g, h) = initialState(.sha512)
            return (a >> 32, b >> 32, c >> 32, d >> 32, e >> 32, f >> 32, g >> 32, h >> 32)
        case .sha384:
            return (0xcbbb_9d5d_c105_9ed8, 0x629a_292a_367c_d507, 0x9159_015a_3070_dd17, 0x152f_ecd8_f70e_5939,
                    0x6733_2667_ffc0_0b31, 0x8eb4_4a87_6858_1511, 0xdb0c_2e0d_64f9_8fa7, 0x47b5_481d_befa_4fa4)
        case .sha512:
            return (0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
                    0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179)
        }
    }

    /// Runs the compression function over `blocks` (whole blocks of sixteen big-endian words).
    static func compress<Word: SHA2Word>(_ state: inout State, _ blocks: UnsafeRawBufferPointer, words _: Word.Type) {
        let wordSize = Word.bitWidth / 8
        let amounts = Word.sha2Amounts
        var (h0, h1, h2, h3) = (Word(truncatingIfNeeded: state.0), Word(truncatingIfNeeded: state.1),
                                Word(truncatingIfNeeded: state.2), Word(truncatingIfNeeded: state.3))
        var (h4, h5, h6, h7) = (Word(truncatingIfNeeded: state.4), Word(truncatingIfNeeded: state.5),
                                Word(truncatingIfNeeded: state.6), Word(truncatingIfNeeded: state.7))
        Word.sha2RoundConstants.withUnsafeBufferPointer { constants in
            let rounds = constants.count
            withUnsafeTemporaryAllocation(of: Word.self, capacity: rounds) { schedule in
                for blockStart in stride(from: 0, to: blocks.count, by: 16 * wordSize) {
                    for t in 0..<16 {
                        let word = blocks.loadUnaligned(fromByteOffset: blockStart + t * wordSize, as: Word.self)
                        schedule[t] = Word(bigEndian: word)
                    }
                    for t in 16..<rounds {
                        let s0 = mix(schedule[t - 15], amounts.smallSigma0, shiftingLast: true)
                        let s1 = mix(schedule[t - 2], amounts.smallSigma1, shiftingLast: true)
                        schedule[t] = s1 &+ schedule[t - 7] &+ s0 &+ schedule[t - 16]
                    }
                    var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    for t in 0..<rounds {
                        let choice = (e & f) ^ (~e & g)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t1 = h &+ mix(e, amounts.bigSigma1, shiftingLast: false) &+ choice
                            &+ constants[t] &+ schedule[t]
                        let t2 = mix(a, amounts.bigSigma0, shiftingLast: false) &+ majority
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                    }
                    (h0, h1, h2, h3) = (h0 &+ a, h1 &+ b, h2 &+ c, h3 &+ d)
                    (h4, h5, h6, h7) = (h4 &+ e, h5 &+ f, h6 &+ g, h7 &+ h)
                }
            }
        }
        state = (UInt64(h0), UInt64(h1), UInt64(h2), UInt64(h3), UInt64(h4), UInt64(h5), UInt64(h6), UInt64(h7))
    }

    /// Σ (three rotations) or σ (two rotations and a shift), XORed together.
    @inline(__always)
    private static func mix<Word: SHA2Word>(_ x: Word, _ n: (Word, Word, Word), shiftingLast: Bool) -> Word {
        let last = shiftingLast ? x &>> n.2 : rotatedRight(x, n.2)
        return rotatedRight(x, n.0) ^ rotatedRight(x, n.1) ^ last
    }

    /// `&<<` masks its count to the word's width, so `0 &- n` shifts by `bitWidth - n` (and is
    /// cheaper than converting `bitWidth` in an unoptimized, unspecialized test build).
    @inline(__always)
    private static func rotatedRight<Word: SHA2Word>(_ x: Word, _ n: Word) -> Word {
        (x &>> n) | (x &<< (0 &- n))
    }
}
