import Glibc
import PodcastPlatform

/// Where an episode continues after a restart (a crash, a kill -9, a reboot, `podcast resume`):
/// from what the earlier run's record vouches for and what its partial file holds.
enum ResumePlan {
    /// Where the partial file of an earlier run can be continued, or why it cannot (nil reason:
    /// there was nothing worth keeping). After a kill -9 in the same boot every byte in the file
    /// is trusted (the page cache holds them); after a reboot only the durable ones.
    static func plan(_ previous: DownloadRecord, partialPath: String) -> (ResumePoint?, why: String?) {
        plan(previous, partialPath: partialPath, size: FileIO.regularFileSize(partialPath), boot: ProcessOwner.currentBoot)
    }

    /// The decision of `plan(_:partialPath:)` from the facts alone: the partial file's `size` (nil:
    /// there is no such regular file) and the machine's current `boot`.
    static func plan(_ previous: DownloadRecord, partialPath: String, size: Int64?, boot: String?) -> (ResumePoint?, why: String?) {
        guard previous.resume.partialPath == partialPath, let size, size > 0 else { return (nil, nil) }
        let sameBoot = previous.resume.dataBoot == boot
        // Every count in the record was true of the file when written; a file holding less has
        // lost data the record vouched for, and nothing in it can be trusted.
        let vouched = sameBoot ? previous.bytes : previous.resume.durableBytes
        if vouched > size {
            return (nil, "the record says \(vouched) bytes were saved but the partial file holds \(size)")
        }
        let trusted = sameBoot ? size : previous.resume.durableBytes
        guard trusted > 0 else { return (nil, nil) }
        if let total = previous.resume.total, trusted > total {
            return (nil, "the partial file (\(trusted) bytes) is longer than the server's file (\(total) bytes)")
        }
        guard let point = previous.resume.point(at: trusted) else {
            return (nil, "no ETag or Last-Modified was recorded to check the partial file against")
        }
        return (point, nil)
    }

    /// Moves a partial file an earlier run left elsewhere (another Episodes directory, an older
    /// layout) to `path`, so it is continued rather than orphaned; one that cannot be moved (another
    /// file system) is removed, since nothing would ever continue it. True when it was moved.
    static func adoptPartial(from earlier: String, to path: String) -> Bool {
        guard FileIO.regularFileSize(earlier) != nil else { return false }
        // Ownership: both are this episode's own partial files in `.partial` folders.
        if FileIO.calls.rename(earlier, path) == 0 { return true }
        unlink(earlier)
        return false
    }
}
