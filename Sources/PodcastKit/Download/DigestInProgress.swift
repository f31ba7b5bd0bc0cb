import Glibc

/// One file's SHA-256 while its bytes arrive, on the `FileDigester`'s thread: of the bytes as
/// served, or, for an MP3 to be tagged, of its tagged copy as it will be (TagLib's new ID3v2 tag,
/// the served audio, TagLib's ID3v1 tag: `ID3Splice.Plan`, made from the first bytes). Then
/// tagging a complete file costs a copy inside the kernel, not a second read and digest of all of
/// it. Other formats are tagged on a copy when complete, which is then read whole.
struct DigestInProgress {
    /// What the digest is of.
    private enum Layout {
        /// The bytes as served.
        case served
        /// To be tagged, but which way is not known yet: too few bytes to tell.
        case undecided(EpisodeTags)
        /// An MP3's tagged copy, as it will be.
        case spliced(ID3Splice.Plan)
        /// Tagged on a copy once complete (not an MP3), which is then read whole.
        case taggedWhenComplete(EpisodeTags)
    }

    private var layout: Layout
    private var hasher = SHA2(.sha256)
    /// How far into the file as served the digest has read.
    private(set) var taken: Int64 = 0
    /// Why the file will not be tagged, when tags were asked for and cannot be written.
    private var untagged: String?

    /// A digest from the first byte, of a file to be tagged with `tags` when given.
    init(tagging tags: EpisodeTags?) {
        layout = tags.map(Layout.undecided) ?? .served
    }

    /// Reads the file at `path` from where the digest stopped up to `bytes`, which the file
    /// holds (all of it when `complete`), minus what could still turn out to be an ID3v1 tag
    /// TagLib's replaces; false when the bytes could not all be read.
    mutating func take(_ path: String, upTo bytes: Int64, complete: Bool, buffer: UnsafeMutableRawBufferPointer) -> Bool {
        if case .undecided(let tags) = layout { decide(path, bytes: bytes, complete: complete, tags: tags) }
        switch layout {
        case .undecided, .taggedWhenComplete: return true
        case .served: return read(path, upTo: bytes, buffer: buffer)
        case .spliced: return complete || read(path, upTo: bytes - ID3Splice.trailerBytes, buffer: buffer)
        }
    }

    /// The file at `path`, complete at `bytes`: its digest, or its tagged copy's with the copy
    /// when tags were asked for and could be written.
    mutating func finish(_ path: String, bytes: Int64, buffer: UnsafeMutableRawBufferPointer) -> DigestedFile {
        let read = take(path, upTo: bytes, complete: true, buffer: buffer)
        switch layout {
        case .undecided(let tags), .taggedWhenComplete(let tags):
            return Self.tagged(path, with: tags)
        case .served:
            return DigestedFile(sha256: read ? hasher.finish() : nil, tagging: untagged.map(TagWriter.Outcome.untagged))
        case .spliced(let plan):
            let tagged = TagWriter.taggedPath(of: path)
            do {
                let tail = try FileIO.bytes(of: path, in: max(0, bytes - ID3Splice.trailerBytes)..<bytes)
                let audioEnd = plan.audioEnd(size: bytes, tail: tail)
                // Bytes taken past the audio's end (a file that ended early) would be in the digest.
                let complete = audioEnd >= taken && self.read(path, upTo: audioEnd, buffer: buffer)
                plan.trailer.withUnsafeBytes { hasher.update($0) }
                let size = try ID3Splice.build(tagged, from: path, as: plan, audioEnd: audioEnd)
                let sha256 = complete ? hasher.finish() : try? SHA2.digest(ofFile: tagged, .sha256)
                return DigestedFile(sha256: nil, tagging: .tagged(TaggedFile(path: tagged, bytes: size, sha256: sha256)))
            } catch {
                unlink(tagged)
                return DigestedFile(sha256: try? SHA2.digest(ofFile: path, .sha256), tagging: .untagged("\(error)"))
            }
        }
    }

    /// The file at `path` tagged with `tags` on a copy (or not, and why), with the digest of what
    /// goes into place: the copy's, else the file's.
    private static func tagged(_ path: String, with tags: EpisodeTags) -> DigestedFile {
        switch TagWriter.write(tags, to: path) {
        case .tagged(var file):
            file.sha256 = file.sha256 ?? (try? SHA2.digest(ofFile: file.path, .sha256))
            return DigestedFile(sha256: nil, tagging: .tagged(file))
        case .untagged(let why):
            return DigestedFile(sha256: try? SHA2.digest(ofFile: path, .sha256), tagging: .untagged(why))
        }
    }

    /// Chooses the layout once the file's first bytes tell its format, and for an MP3 once it
    /// holds enough for the plan.
    private mutating func decide(_ path: String, bytes: Int64, complete: Bool, tags: EpisodeTags) {
        guard complete || bytes >= Int64(MediaFormat.headerBytes) else { return }
        guard let header = try? FileIO.bytes(of: path, in: 0..<min(bytes, Int64(MediaFormat.headerBytes))) else { return }
        guard MediaFormat.sniff(header) == .mp3 else {
            layout = .taggedWhenComplete(tags)
            return
        }
        switch ID3Splice.plan(path, available: bytes, complete: complete, tag: { TagWriter.write(tags, toMPEG: $0) }) {
        case .planned(let plan):
            layout = .spliced(plan)
            plan.tag.withUnsafeBytes { hasher.update($0) }
            taken = plan.oldTagLength
        case .needsMoreBytes:
            break
        case .untagged(let why):
            untagged = why
            layout = .served
        }
    }

    /// Hashes the file's bytes from `taken` up to `end`; false when they could not all be read
    /// (the file is shorter: it started over, and the next news says how far it is).
    private mutating func read(_ path: String, upTo end: Int64, buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard end > taken else { return true }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        while taken < end {
            let wanted = Int(min(Int64(buffer.count), end - taken))
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(taken))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            taken += Int64(count)
        }
        return true
    }
}
