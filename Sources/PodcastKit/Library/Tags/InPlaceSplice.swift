import CFileSystem
import Glibc
import PodcastPlatform

/// Puts an MP3's new tags into the complete served file itself, as its `ID3Splice.Plan` says,
/// instead of into a copy: the copy wrote every byte of a tagged episode a second time (+40% of a
/// tagged download's wall time on 8 × 64 MiB, and twice the disk writes). ext4 and XFS insert
/// whole blocks in front of a file's data by moving its extents, not its bytes (`fallocate` with
/// `FALLOC_FL_INSERT_RANGE`); the plan's tag is padded to need exactly such room, or none when it
/// fits where the old tag was. Only there: on copy-on-write file systems (btrfs) even rewriting a
/// tag in place takes new blocks, which a full disk could refuse halfway.
///
/// Once changed, the file is no longer the served bytes its download's record describes, and no
/// resume may ever append to it. So it first leaves the partial file's name for the one the batch
/// places it from: a kill -9 before the batch records it leaves no partial file, and the episode is
/// fetched again; a partial file is never spliced. Every block the tags need is allocated before
/// the first byte changes, so a full disk leaves the file as served, under its own name.
struct InPlaceSplice: Equatable, Sendable {
    /// What ext4 and XFS insert in: their usual block size, a multiple of the smaller ones.
    static let unit: Int64 = 4096

    /// The tags, and what they replace.
    var plan: ID3Splice.Plan
    /// Where the served file's audio ends: before an old ID3v1 tag, which the plan's replaces.
    var audioEnd: Int64

    /// The tagged file's size.
    var taggedBytes: Int64 { plan.taggedBytes(audioEnd: audioEnd) }

    /// Whether a served file in `folder` can take `plan`'s tags itself.
    static func fits(_ plan: ID3Splice.Plan, inFolder folder: String) -> Bool {
        plan.fitsInPlace && insertsRanges(inFolder: folder)
    }

    /// Whether the file system holding `folder` inserts whole `unit`s in front of a file's data
    /// (tried on an unnamed file there: ext4 and XFS do, tmpfs, btrfs and NFS do not).
    static func insertsRanges(inFolder folder: String) -> Bool {
        podcast_inserts_ranges(folder, unit) == 1
    }

    /// Makes the tagged file of the complete served file at `served` at `tagged`, as the batch
    /// places it: the served file itself, moved there and spliced, where it can be; else a copy
    /// beside it (`ID3Splice.build`), and the served file stays as it was. Returns its size. After
    /// a failure nothing is left at `tagged`, and the served file is as it was unless the failure
    /// came after its first byte changed (a failing disk): then it is gone, and the episode is
    /// fetched again.
    func make(at tagged: String, from served: String) throws(SystemError) -> Int64 {
        do {
            if try perform(on: served, into: tagged) { return taggedBytes }
            return try ID3Splice.build(tagged, from: served, as: plan, audioEnd: audioEnd)
        } catch {
            // Ownership: the staged file this splice made, not yet placed.
            unlink(tagged)
            throw error
        }
    }

    /// Moves the complete served file at `served` to `staged` and splices the tags into it; false,
    /// and nothing changed, when they do not fit in place there or the file system refuses the
    /// insertion. An error before the first byte changes leaves the served file as it was (unless
    /// even giving it its name back fails); one after that leaves it spliced in part.
    private func perform(on served: String, into staged: String) throws(SystemError) -> Bool {
        guard Self.fits(plan, inFolder: FileIO.folder(of: served)) else { return false }
        let descriptor = open(served, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .last("open", path: served) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .last("fstat", path: served) }
        let servedBytes = Int64(status.st_size)
        guard plan.oldTagLength <= audioEnd, audioEnd <= servedBytes else { return false }
        // Ownership: the episode's own partial file, moved to a staging name podcast alone uses.
        guard rename(served, staged) == 0 else { throw .last("rename", path: staged) }
        if let refusal = makeRoom(descriptor, servedBytes: servedBytes, path: staged) {
            guard undoRoom(descriptor, servedBytes: servedBytes, served: served, staged: staged) else { throw refusal }
            if refusal.code == EOPNOTSUPP || refusal.code == EINVAL { return false }
            throw refusal
        }
        try FileIO.write(plan.tag[...], to: descriptor, at: 0, path: staged)
        try FileIO.write(plan.trailer[...], to: descriptor, at: audioEnd + plan.room, path: staged)
        guard ftruncate(descriptor, off_t(taggedBytes)) == 0 else { throw .last("ftruncate", path: staged) }
        return true
    }

    /// Inserts the room in front of the file and allocates every block the tags will be written
    /// to (the room's, and the end's when the file grows); nil when done, else the refusal.
    private func makeRoom(_ descriptor: Int32, servedBytes: Int64, path: String) -> SystemError? {
        let room = plan.room
        if room > 0 {
            guard podcast_insert_range(descriptor, 0, room) == 0 else { return .last("fallocate", path: path) }
            let code = posix_fallocate(descriptor, 0, off_t(room))
            if code != 0 { return SystemError(call: "fallocate", path: path, code: code) }
        }
        let grown = taggedBytes - (servedBytes + room)
        if grown > 0 {
            let code = posix_fallocate(descriptor, off_t(servedBytes + room), off_t(grown))
            if code != 0 { return SystemError(call: "fallocate", path: path, code: code) }
        }
        return nil
    }

    /// Takes back what `makeRoom` did and gives the file its served name again; false when it
    /// could not, and the file is no longer the served one.
    private func undoRoom(_ descriptor: Int32, servedBytes: Int64, served: String, staged: String) -> Bool {
        let room = plan.room
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        if Int64(status.st_size) > servedBytes + room, ftruncate(descriptor, off_t(servedBytes + room)) != 0 { return false }
        if room > 0, Int64(status.st_size) > servedBytes, podcast_collapse_range(descriptor, 0, room) != 0 { return false }
        // Ownership: the staging name back to the episode's own partial file.
        return rename(staged, served) == 0
    }
}
