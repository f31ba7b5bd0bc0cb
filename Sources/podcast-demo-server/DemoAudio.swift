import Foundation

/// Small playable audio files the demo makes itself: 16-bit mono PCM WAV with a tone.
enum DemoAudio {
    static let sampleRate = 8_000

    /// A WAV file of `seconds` of a sine tone at `frequency` Hz, fading in and out.
    static func wav(seconds: Int, frequency: Double) -> [UInt8] {
        let samples = sampleRate * seconds
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + samples * 2)
        func append(_ text: String) { bytes += Array(text.utf8) }
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

        append("RIFF"); append32(UInt32(36 + samples * 2)); append("WAVE")
        append("fmt "); append32(16); append16(1); append16(1)
        append32(UInt32(sampleRate)); append32(UInt32(sampleRate * 2)); append16(2); append16(16)
        append("data"); append32(UInt32(samples * 2))
        let fade = Double(sampleRate) / 10
        for index in 0..<samples {
            let envelope = min(1, Double(index) / fade, Double(samples - index) / fade)
            let value = sin(2 * Double.pi * frequency * Double(index) / Double(sampleRate)) * envelope * 12_000
            append16(UInt16(bitPattern: Int16(value)))
        }
        return bytes
    }
}
