import Glibc
import PodcastPlatform

/// One file's SHA-256 while its bytes arrive, on the `FileDigester`'s thread: of the bytes as
/// served, or, for an MP3 to be tagged, of the file as it will be once tagged (TagLib's new ID3v2
/// tag, the served audio, TagLib's ID3v1 tag: `ID3Splice.Plan`, made from the first bytes). The
/// batch then splices the tags into the served file itself as it places it (`InPlaceSplice`);
/// where the file system cannot take them so, a tagged copy is written as the audio is hashed,
/// from the same buffer. Either way no second read, copy or digest of the whole file waits for
/// the end, when the other downloads wait on the same thread. Other formats are tagged on a copy
/// when complete, which is then read whole.
///
/// A value that owns a file (the copy in progress): whoever drops it before `finish` calls `discard`.
struct DigestInProgress {
    /// What the digest is of.
    private enum Layout {
        /// The bytes as served.
        case served
        /// To be tagged, but which way is not known yet: too few bytes to tell.
        case undecided(EpisodeTags)
        /// An MP3 to be tagged: spliced in place once complete (`copy` nil), else copied to
        /// `copy`, which holds the new tag and the audio taken so far.
        case spliced(ID3Splice.Plan, copy: String?)
        /// Tagged on a copy once complete (not an MP3), which is then read whole.
        case taggedWhenComplete(EpisodeTags)
    }

    private var layout: Layout
    private var hasher = SHA2(.sha256)
    /// How far into the file as served the digest has read.
    private(set) var taken: Int64 = 0
    /// How far the page cache was let drop the file's pages (`dropCache`).
    private var dropped: Int64 = 0
    /// Why the file will not be tagged, when tags were asked for and cannot be written.
    private var untagged: String?
    /// Why the tagged copy in progress cannot be trusted (a write failed): it is made whole at the end.
    private var copyFailure: SystemError?

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

    /// Removes the tagged copy in progress, if any: the digest is dropped unfinished.
    func discard() {
        // Ownership: the tagged copy this digest made.
        if case .spliced(_, let copy?) = layout { unlink(copy) }
    }

    /// The file at `path`, complete at `bytes`: its digest, or its tagged copy's with the copy
    /// when tags were asked for and could be written.
    mutating func finish(_ path: String, bytes: Int64, buffer: UnsafeMutableRawBufferPointer) -> DigestedFile {
        let readWhole = take(path, upTo: bytes, complete: true, buffer: buffer)
        switch layout {
        case .undecided(let tags), .taggedWhenComplete(let tags):
            return Self.tagged(path, with: tags)
        case .served:
            return DigestedFile(sha256: readWhole ? hasher.finish() : nil, tagging: untagged.map(TagWriter.Outcome.untagged))
        case .spliced(let plan, let copy):
            do {
                let tail = try FileIO.bytes(of: path, in: max(0, bytes - ID3Splice.trailerBytes)..<bytes)
                let audioEnd = plan.audioEnd(size: bytes, tail: tail)
                let splice = InPlaceSplice(plan: plan, audioEnd: audioEnd)
                // Bytes taken past the audio's end (a file that ended early) are in the digest and
                // the copy: then, or after a failed write, the spliced file is read for its digest,
                // or the copy is made again whole.
                let readWhole = audioEnd >= taken && self.read(path, upTo: audioEnd, buffer: buffer)
                guard let copy else {
                    if readWhole { plan.trailer.withUnsafeBytes { hasher.update($0) } }
                    return DigestedFile(sha256: nil, tagging: .spliceInPlace(splice, sha256: readWhole ? hasher.finish() : nil))
                }
                if readWhole, copyFailure == nil {
                    try append(plan.trailer, to: copy)
                    if copyFailure == nil, FileIO.regularFileSize(copy) == splice.taggedBytes {
                        return DigestedFile(sha256: nil, tagging: .tagged(TaggedFile(path: copy, bytes: splice.taggedBytes, sha256: hasher.finish())))
                    }
                }
                let size = try ID3Splice.build(copy, from: path, as: plan, audioEnd: audioEnd)
                return DigestedFile(sha256: nil, tagging: .tagged(TaggedFile(path: copy, bytes: size, sha256: try? SHA2.digest(ofFile: copy, .sha256))))
            } catch {
                // Ownership: the tagged copy this digest made.
                if let copy { unlink(copy) }
                return DigestedFile(sha256: try? SHA2.digest(ofFile: path, .sha256), tagging: .untagged("\(error)"))
            }
        }
    }

    /// The file at `path` tagged with `tags` on a copy (or not, and why), with the digest of what
    /// goes into place: the copy's, else the file's.
    private static func tagged(_ path: String, with tags: EpisodeTags) -> DigestedFile {
        let outcome = TagWriter.write(tags, to: path)
        switch outcome {
        case .tagged(var file):
            file.sha256 = file.sha256 ?? (try? SHA2.digest(ofFile: file.path, .sha256))
            return DigestedFile(sha256: nil, tagging: .tagged(file))
        case .spliceInPlace:
            return DigestedFile(sha256: nil, tagging: outcome)
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
            var copy: String?
            if !InPlaceSplice.fits(plan, inFolder: FileIO.folder(of: path)) {
                let copyPath = TagWriter.taggedPath(of: path)
                do {
                    try FileIO.writeNewFile(copyPath, contents: plan.tag)
                } catch {
                    // Ownership: the tagged copy this digest made.
                    unlink(copyPath)
                    untagged = "\(error)"
                    layout = .served
                    return
                }
                copy = copyPath
            }
            layout = .spliced(plan, copy: copy)
            plan.tag.withUnsafeBytes { hasher.update($0) }
            taken = plan.oldTagLength
        case .needsMoreBytes:
            break
        case .untagged(let why):
            untagged = why
            layout = .served
        }
    }

    /// Hashes the file's bytes from `taken` up to `end`, and appends them to the tagged copy in
    /// progress; false when they could not all be read (the file is shorter: it started over,
    /// and the next news says how far it is).
    private mutating func read(_ path: String, upTo end: Int64, buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard end > taken else { return true }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let copy = copyDescriptor()
        defer { if let copy { close(copy.descriptor) } }
        while taken < end {
            let wanted = Int(min(Int64(buffer.count), end - taken))
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(taken))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
            hasher.update(bytes)
            if let copy, copyFailure == nil {
                do throws(SystemError) {
                    try FileIO.write(bytes, to: copy.descriptor, path: copy.path)
                } catch {
                    copyFailure = error
                }
            }
            taken += Int64(count)
        }
        dropCache(descriptor)
        return true
    }

    /// Lets the page cache drop the file's pages the digest has read, up to one piece before the
    /// last: the batch handed that piece to the disk's writeback when it was announced, so it is
    /// written by now, and dropping it keeps a large download from pushing everything else out of
    /// memory (dirty pages are left alone). The batch once dropped them by the engine's progress
    /// instead: a digest a piece behind then read them back from the disk (230 MB of 512 MiB, on
    /// 8 × 64 MiB). A hint: on tmpfs, or when it fails, the pages stay.
    private mutating func dropCache(_ descriptor: Int32) {
        let readAndWritten = taken - Transfer.filledPiece
        guard readAndWritten > dropped else { return }
        _ = posix_fadvise(descriptor, off_t(dropped), off_t(readAndWritten - dropped), POSIX_FADV_DONTNEED)
        dropped = readAndWritten
    }

    /// The tagged copy in progress opened to append to; nil when there is none (or it could not
    /// be opened, which `copyFailure` then says).
    private mutating func copyDescriptor() -> (descriptor: Int32, path: String)? {
        guard case .spliced(_, let path?) = layout, copyFailure == nil else { return nil }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else {
            copyFailure = .last("open", path: path)
            return nil
        }
        return (descriptor, path)
    }

    /// Appends `bytes` to the tagged copy at `path`, and to the digest.
    private mutating func append(_ bytes: [UInt8], to path: String) throws(SystemError) {
        bytes.withUnsafeBytes { hasher.update($0) }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        defer { close(descriptor) }
        try FileIO.write(bytes[...], to: descriptor, path: path)
    }
}
