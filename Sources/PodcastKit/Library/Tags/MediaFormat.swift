/// What kind of media file a download is, read from its first bytes (a partial file has no
/// telling extension, and servers often send the wrong Content-Type): which tags it can take.
enum MediaFormat: Equatable {
    /// MPEG audio (MP3), with or without an ID3v2 tag in front.
    case mp3
    /// An MP4 container (M4A, M4B, MP4).
    case mp4
    /// Ogg Vorbis.
    case vorbis
    /// Ogg Opus.
    case opus
    /// FLAC.
    case flac

    /// How many leading bytes `sniff` needs at most.
    static let headerBytes = 64

    /// The format of a file that starts with `header`; nil for one TagLib is not asked to tag
    /// (WAV, AAC in ADTS, video in WebM, or bytes that are no known format).
    static func sniff(_ header: [UInt8]) -> MediaFormat? {
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let bytes = Array(text.utf8)
            return header.count >= offset + bytes.count && Array(header[offset..<offset + bytes.count]) == bytes
        }
        if starts("ID3") { return .mp3 }
        if starts("fLaC") { return .flac }
        if starts("ftyp", at: 4) { return .mp4 }
        if starts("OggS") {
            if contains("OpusHead", in: header) { return .opus }
            if contains("vorbis", in: header) { return .vorbis }
            return nil
        }
        // An MPEG audio frame header: 11 sync bits, then a layer that is not 00 (00 is AAC's ADTS).
        if header.count >= 2, header[0] == 0xFF, header[1] & 0xE0 == 0xE0, header[1] & 0x06 != 0 { return .mp3 }
        return nil
    }

    private static func contains(_ text: String, in bytes: [UInt8]) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<$0 + needle.count]) == needle }
    }
}
