import Glibc
import PodcastPlatform

/// The SHA-256s of downloaded files (what `podcast verify` checks them against), taken on a thread
/// of its own while the network reads. Taken on the engine's thread, piece by piece as each was
/// written, the digest was the largest single cost of a download (+50% wall time on 8 × 64 MiB
/// over loopback, where the engine's thread is the bottleneck). Here each file is read back from
/// the page cache as the engine announces its pieces (`.filled`, every 4 MiB), so by the time a
/// file is complete only its last piece is left to hash.
///
/// A file asked to be tagged (`--tag`) is tagged here too, once complete, off the batch's thread
/// (where rewriting an MP3 held back every other episode's progress and start); an MP3 is hashed
/// as it arrives as it will be once tagged (`DigestInProgress`), so tagging it costs no second
/// read: its tags are spliced into it as it is placed, or, where the file system cannot do that,
/// written with its audio into a copy from the same reads.
///
/// Not Sendable: the batch's thread owns it, and tells it in order what the engine said; the
/// digests come back through `deliver`.
final class FileDigester {
    private enum Job: Sendable {
        /// The file of request `id` holds `bytes` bytes (fewer than it held before when it started
        /// over); it is to be tagged with `tags` when given.
        case filled(id: Int, path: String, bytes: Int64, tags: EpisodeTags?)
        /// An attempt writes from `offset` on: bytes past it, hashed or not, are gone.
        case rewinding(id: Int, offset: Int64)
        /// The file is complete at `bytes`: it is tagged with `tags` when given, and its digest delivered.
        case complete(id: Int, path: String, bytes: Int64, tags: EpisodeTags?)
        /// The download ended another way: its digest is not needed.
        case forget(id: Int)
        case stop
    }

    private let jobs = EventQueue<Job>()
    private var thread: BackgroundThread<Void, Never>?
    /// Where the work goes when no thread can be started: done on the caller's thread.
    private var inline: Hashing?

    /// A digester that hands each complete file's digest to `deliver`, on its own thread: nil when
    /// the file could not be read, which the batch's finishing then reads again and reports.
    init(deliver: @escaping @Sendable (_ id: Int, _ file: DigestedFile) -> Void) {
        let jobs = self.jobs
        thread = BackgroundThread {
            let hashing = Hashing(deliver: deliver)
            while true {
                for job in jobs.drain() {
                    guard hashing.carryOut(job) else { return }
                }
            }
        }
        if thread == nil { inline = Hashing(deliver: deliver) }
    }

    /// The file of request `id` at `path` holds `bytes` bytes so far; it is to be tagged with
    /// `tags` when given (the same at every call for one file).
    func filled(_ id: Int, path: String, bytes: Int64, tagging tags: EpisodeTags? = nil) {
        post(.filled(id: id, path: path, bytes: bytes, tags: tags))
    }

    /// An attempt of request `id` writes from `offset` on (a resume, or 0 when it starts over).
    func rewinding(_ id: Int, to offset: Int64) { post(.rewinding(id: id, offset: offset)) }

    /// The file of request `id` at `path` is complete at `bytes`: its digest is delivered, after
    /// `tags` were written into it when given.
    func complete(_ id: Int, path: String, bytes: Int64, tagging tags: EpisodeTags? = nil) {
        post(.complete(id: id, path: path, bytes: bytes, tags: tags))
    }

    /// Request `id` ended without a complete file.
    func forget(_ id: Int) { post(.forget(id: id)) }

    /// Ends the thread once every job posted so far is done.
    func shutdown() {
        post(.stop)
        thread?.wait()
        thread = nil
    }

    private func post(_ job: Job) {
        if inline != nil {
            _ = inline?.carryOut(job)
        } else {
            jobs.post(job)
        }
    }

    /// The digests in progress, on the digester's thread (or the caller's, when there is none).
    private final class Hashing {
        let deliver: @Sendable (Int, DigestedFile) -> Void
        /// Per request: its digest so far.
        var files: [Int: DigestInProgress] = [:]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

        init(deliver: @escaping @Sendable (Int, DigestedFile) -> Void) {
            self.deliver = deliver
        }

        deinit {
            buffer.deallocate()
        }

        /// Carries out `job`; false for `.stop`.
        func carryOut(_ job: Job) -> Bool {
            switch job {
            case .filled(let id, let path, let bytes, let tags):
                var file = current(id, holding: bytes, tags: tags)
                // Shorter than announced: the file started over meanwhile; the next news says how far.
                if !file.take(path, upTo: bytes, complete: false, buffer: buffer) {
                    file.discard()
                    file = DigestInProgress(tagging: tags)
                }
                files[id] = file
            case .rewinding(let id, let offset):
                if let file = files[id], file.taken > offset {
                    file.discard()
                    files[id] = nil
                }
            case .complete(let id, let path, let bytes, let tags):
                var file = current(id, holding: bytes, tags: tags)
                files[id] = nil
                deliver(id, file.finish(path, bytes: bytes, buffer: buffer))
            case .forget(let id):
                files[id]?.discard()
                files[id] = nil
            case .stop:
                for file in files.values { file.discard() }
                files = [:]
                return false
            }
            return true
        }

        /// Request `id`'s digest so far, or a new one when there is none or its file now holds
        /// fewer bytes than it took (it started over).
        private func current(_ id: Int, holding bytes: Int64, tags: EpisodeTags?) -> DigestInProgress {
            if let file = files[id] {
                if bytes >= file.taken { return file }
                file.discard()
            }
            return DigestInProgress(tagging: tags)
        }
    }
}

/// A complete file as the `FileDigester` leaves it.
struct DigestedFile: Sendable, Equatable {
    /// The SHA-256 of the file as served, when it goes into place as it is; nil when it could not
    /// be read (the batch's finishing reads it again, and reports what fails) or when a tagged
    /// copy goes instead (its digest is in `tagging`).
    var sha256: [UInt8]?
    /// What writing the tags did, when they were asked for.
    var tagging: TagWriter.Outcome?
}
