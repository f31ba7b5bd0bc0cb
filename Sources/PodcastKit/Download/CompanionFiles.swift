import FoundationEssentials
import Glibc
import PodcastPlatform

/// The companion files a batch fetches for its episodes once they are in place (the best
/// transcript, the chapters, the artwork, the show's cover) through the batch's engine, and the
/// info file it writes beside them. Their failures are warnings: the episode stays downloaded.
/// Not Sendable: the batch's thread owns it.
final class CompanionFiles {
    /// Companion transfers' request ids start here, far past any episode's index.
    static let firstID = 1 << 40

    private let store: StateStore
    /// The engine of the batch's run, while it runs.
    var engine: TransferEngine?
    /// Companion files being fetched, by request id (from `firstID` on).
    private var fetches: [Int: CompanionFetch] = [:]
    /// Companion transfers started so far, for their ids.
    private var started = 0
    /// Podcast folders whose cover this batch has seen to.
    private var coverFolders: Set<String> = []

    init(store: StateStore) {
        self.store = store
    }

    /// True when no companion file is being fetched.
    var isEmpty: Bool { fetches.isEmpty }

    /// True for the request ids of companion transfers.
    static func owns(_ id: Int) -> Bool { id >= firstID }

    /// Starts what `filing` asks to go with `item`'s media file at `path` and is not there yet:
    /// the best transcript, the chapters, the artwork and the show's cover are fetched through
    /// the engine; the info file is written at once. What the feed does not offer is skipped.
    func start(of item: DownloadItem, filing: EpisodeFiling, at path: String, report: (DownloadUpdate) -> Void) {
        let wanted = filing.settings.companions
        guard !wanted.isEmpty, let slash = path.lastIndex(of: "/") else { return }
        let folder = String(path[..<slash])
        let fileName = path[path.index(after: slash)...]
        let stem = String(fileName[..<(fileName.lastIndex(of: ".") ?? fileName.endIndex)])
        guard let show = filing.show else {
            report(.warning(item, "its companion files need the feed's details, and the feed is not in the cache; "
                + "run podcast episodes <feed>, then podcast download again"))
            return
        }
        let present: Set<LibraryFile.Kind>
        do {
            present = Set(try store.libraryFiles.files(of: item.key).filter { access($0.path, F_OK) == 0 }.map(\.kind))
        } catch {
            report(.warning(item, "could not look up its companion files (\(error)); they are not fetched"))
            return
        }
        let episode = filing.episode
        func fetch(_ kind: LibraryFile.Kind, from url: String?, fileExtension: String?) {
            guard let url, !present.contains(kind) else { return }
            start(CompanionFetch(
                item: item, kind: kind, url: url, partialPath: ProcessTemporary.path(in: folder, for: path + "\n" + kind.rawValue),
                folder: folder, stem: stem, fileExtension: fileExtension))
        }
        if wanted.contains(.transcript), let best = TranscriptFormat.best(of: episode?.transcripts ?? [], order: filing.settings.transcriptTypes) {
            fetch(.transcript, from: best.transcript.url, fileExtension: best.format.fileExtension)
        }
        if wanted.contains(.chapters) {
            fetch(.chapters, from: episode?.chaptersURL, fileExtension: "chapters.json")
        }
        if wanted.contains(.image) {
            fetch(.image, from: episode?.image ?? show.image, fileExtension: nil)
            startCover(of: item, show: show, in: filing.podcastFolder)
        }
        if wanted.contains(.info), !present.contains(.info) {
            writeInfo(of: item, show: show, episode: episode, to: folder + "/" + stem + ".info.json", report: report)
        }
    }

    /// Fetches the show's artwork as `cover.<ext>` into its podcast folder, once: not when the
    /// folder has a `cover.*` already (podcast's or the user's), nor twice in one batch.
    private func startCover(of item: DownloadItem, show: Feed, in folder: String?) {
        guard let folder, let image = show.image, coverFolders.insert(folder).inserted else { return }
        let names = (try? FileIO.names(in: folder)) ?? []
        guard !names.contains(where: { $0.hasPrefix("cover.") }) else { return }
        start(CompanionFetch(
            item: item, kind: .cover, url: image, partialPath: ProcessTemporary.path(in: folder, for: folder + "\ncover"),
            folder: folder, stem: "cover", fileExtension: nil))
    }

    /// Starts `fetch` on the engine; not once the batch stopped (no engine), when the next
    /// download of the episode fetches what it lacks.
    private func start(_ fetch: CompanionFetch) {
        guard let engine else { return }
        let id = Self.firstID + started
        started += 1
        fetches[id] = fetch
        engine.start(fetch.request(id: id, resume: nil, notBefore: nil))
    }

    /// Writes `<name>.info.json` beside the media file.
    private func writeInfo(of item: DownloadItem, show: Feed, episode: Episode?, to destination: String, report: (DownloadUpdate) -> Void) {
        let folder = String(destination[..<(destination.lastIndex(of: "/") ?? destination.endIndex)])
        let temporary = ProcessTemporary.path(in: folder, for: destination)
        do {
            let document = try EpisodeInfo(item: item, show: show, episode: episode).json()
            try FileIO.writeNewFile(temporary, contents: document)
            var digest = SHA2(.sha256)
            document.withUnsafeBytes { digest.update($0) }
            let file = LibraryFile(
                path: destination, feed: item.feed, identity: item.entry.identity, kind: .info, bytes: Int64(document.count),
                sha256: SHA2.hex(digest.finish()))
            if let problem = try placeCompanion(temporary, as: file) { report(.warning(item, problem)) }
        } catch {
            // Ownership: this process's own temporary file (`ProcessTemporary`).
            unlink(temporary)
            report(.warning(item, "could not write \(destination): \(error)"))
        }
    }

    /// What a companion transfer reports, handled here: its answer's validators are kept (to
    /// continue it), a complete file is put in place and recorded, a failure is retried by the
    /// scheduler or becomes a warning (silently dropped once the batch stopped). Progress is not
    /// shown for companions.
    func handle(_ event: TransferEvent, batchStopped: Bool, scheduler: inout RetryScheduler, report: (DownloadUpdate) -> Void) {
        switch event {
        case .responded(let answer):
            fetches[answer.id]?.resume.etag = answer.encoded ? nil : answer.etag
            fetches[answer.id]?.resume.lastModified = answer.encoded ? nil : answer.lastModified
            fetches[answer.id]?.resume.total = answer.total
        case .completed(let done):
            guard let fetch = fetches.removeValue(forKey: done.id) else { return }
            let destination = fetch.destination(contentType: done.contentType)
            do {
                // Companions are small: read for their digest here, once complete.
                let file = LibraryFile(
                    path: destination, feed: fetch.item.feed, identity: fetch.kind == .cover ? nil : fetch.item.entry.identity,
                    kind: fetch.kind, bytes: done.bytes, sha256: SHA2.hex(try SHA2.digest(ofFile: fetch.partialPath, .sha256)),
                    subscription: fetch.kind == .cover ? fetch.item.subscription : nil)
                if let problem = try placeCompanion(fetch.partialPath, as: file) { report(.warning(fetch.item, problem)) }
            } catch {
                // Ownership: the companion's own temporary file (`ProcessTemporary`).
                unlink(fetch.partialPath)
                report(.warning(fetch.item, "could not save its \(fetch.kind.label) as \(destination): \(error)"))
            }
        case .failed(let failure):
            guard var fetch = fetches[failure.id] else { return }
            // Without an engine (the batch stopped) there is no next attempt: it is dropped silently.
            switch fetch.retry(after: failure, batchStopped: batchStopped || engine == nil, scheduler: &scheduler) {
            case .attempt(let point, let notBefore):
                fetches[failure.id] = fetch
                engine?.start(fetch.request(id: failure.id, resume: point, notBefore: notBefore))
            case .drop(let warning):
                fetches[failure.id] = nil
                // Ownership: the companion's own temporary file (`ProcessTemporary`).
                unlink(fetch.partialPath)
                if let warning { report(.warning(fetch.item, warning)) }
            }
        case .started, .progress, .filled:
            break
        }
    }

    /// Moves `temporary` to `file.path` and records it, unless a file that is not this episode's (or
    /// this podcast's) own companion of that kind is there, unchanged since podcast wrote it: the
    /// user's, or another episode's, is left alone (`FileOwnership`). Returns why it was not placed,
    /// for a warning; nil when it was.
    private func placeCompanion(_ temporary: String, as file: LibraryFile) throws -> String? {
        let reason: FileOwnership.Reason = file.identity.map { .companion(EpisodeKey(feed: file.feed, identity: $0), file.kind) }
            ?? .podcastFile(feed: file.feed, file.kind)
        if let refused = try FileOwnership(store: store).place(temporary, at: file.path, for: reason) {
            // A temporary file of this process's own (`ProcessTemporary`), never placed.
            unlink(temporary)
            return refused
        }
        var placed = file
        placed.fileStamp = FileIO.stamp(ofName: file.path)
        do {
            try store.libraryFiles.save(placed)
        } catch {
            // Unrecorded, it would never be podcast's to delete: it goes now instead.
            // Ownership: the file this call placed a moment ago and could not record.
            unlink(file.path)
            throw error
        }
        return nil
    }
}
