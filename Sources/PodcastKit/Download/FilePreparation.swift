import PodcastPlatform
import Glibc

/// What is done to a completed transfer's file before it is placed: it is checked against the
/// feed's `podcast:integrity` digest (the bytes as served), tagged when asked (in a copy beside it,
/// `TagWriter`), and the SHA-256 of what goes into place is taken (what `podcast verify` checks).
///
/// All of it reads the whole file, so it runs once the file is complete, on a thread of its own
/// (`FilePreparer`) while the other transfers go on; the batch's thread never waits for it. At a
/// home line's 25 MiB/s a 512 MiB episode takes 20 s to arrive and 0.3 s to hash from the page
/// cache, so hashing as the bytes arrive (which this replaced) saved nothing users could feel.
struct FilePreparation: Equatable, Sendable {
    /// The episode's request id in the batch.
    let id: Int
    /// The complete file as served: the episode's partial file.
    let path: String
    /// Its size.
    let bytes: Int64
    /// The feed's digest to check it against, if it publishes one.
    let integrity: Integrity.Check?
    /// The tags to write into it, when asked (`--tag`).
    let tags: EpisodeTags?

    /// How the preparation ended.
    enum Outcome: Equatable, Sendable {
        /// Ready to be placed: `file` (the partial file or its tagged copy); `untagged` says why
        /// it was not tagged when tags were asked for and could not be written.
        case ready(FinishedFile, untagged: String?)
        /// The file does not match the feed's digest (`check` names the algorithm).
        case mismatched(check: String)
        /// The file could not be read or copied: why, one line.
        case failed(String)
    }

    /// Checks, tags and hashes the file. A tagged copy made here is removed when what follows fails.
    func run() -> Outcome {
        do {
            var served: [UInt8]?
            if let integrity {
                let digest = try SHA2.digest(ofFile: path, .sha256)
                guard try integrity.matches(file: path, sha256: digest) else { return .mismatched(check: "\(integrity)") }
                served = digest
            }
            var untagged: String?
            if let tags {
                switch TagWriter.write(tags, to: path) {
                case .tagged(let copy):
                    do {
                        let digest = try SHA2.digest(ofFile: copy.path, .sha256)
                        return .ready(FinishedFile(bytes: copy.bytes, sha256: SHA2.hex(digest), source: copy.path), untagged: nil)
                    } catch {
                        // Ownership: the tagged copy `TagWriter` just made for this file.
                        unlink(copy.path)
                        throw error
                    }
                case .untagged(let why):
                    untagged = why
                }
            }
            let digest = try served ?? SHA2.digest(ofFile: path, .sha256)
            return .ready(FinishedFile(bytes: bytes, sha256: SHA2.hex(digest), source: path), untagged: untagged)
        } catch {
            return .failed("\(error)")
        }
    }
}

/// A finished file as it is on disk once checked and tagged: what `podcast verify` checks it against.
struct FinishedFile: Equatable, Sendable {
    /// Its size.
    var bytes: Int64
    /// Its SHA-256, lowercase hex.
    var sha256: String
    /// The file that goes into place: the partial file, or its tagged copy.
    var source: String
    /// Which file it is once in place, and its ctime then (`FileOwnership` checks it is still that one).
    var stamp: FileIO.Stamp?
}

/// Runs `FilePreparation`s one after another on a thread of its own, beside the batch's and the
/// engine's, handing each outcome to `deliver`. Not Sendable: the batch's thread owns it.
final class FilePreparer {
    private let jobs = EventQueue<FilePreparation?>()
    private var thread: BackgroundThread<Void, Never>?
    /// Where outcomes go when no thread can be started: the work is then done on the caller's thread.
    private let deliver: @Sendable (Int, FilePreparation.Outcome) -> Void

    /// A preparer that hands each outcome, with its request id, to `deliver`, from its own thread.
    init(deliver: @escaping @Sendable (_ id: Int, _ outcome: FilePreparation.Outcome) -> Void) {
        self.deliver = deliver
        let jobs = self.jobs
        thread = BackgroundThread {
            while true {
                for job in jobs.drain() {
                    // nil: `shutdown`, once every job posted before it is done.
                    guard let job else { return }
                    deliver(job.id, job.run())
                }
            }
        }
    }

    /// Prepares `job`'s file; its outcome is delivered once done.
    func prepare(_ job: FilePreparation) {
        guard thread != nil else { return deliver(job.id, job.run()) }
        jobs.post(job)
    }

    /// Ends the thread once every job posted so far is done.
    func shutdown() {
        jobs.post(nil)
        thread?.wait()
        thread = nil
    }
}
