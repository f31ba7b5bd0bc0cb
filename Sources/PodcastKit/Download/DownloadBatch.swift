import FoundationEssentials
import Glibc

/// Downloads a set of episodes: claims each in the progress buffer (so no episode is fetched
/// twice, even by two processes), recognizes files already in the Episodes directory, runs the
/// transfers on a `TransferEngine`, and moves each finished file to its final name.
///
/// Blocks the calling thread until every episode has ended; finishing files happens on that
/// thread, never on the engine's.
public final class DownloadBatch {
    private let store: StateStore
    private let episodesDirectory: String
    private let settings: TransferEngine.Settings
    /// Folders made in this batch, so a thousand episodes of one podcast make it once.
    private var madeFolders: Set<String> = []

    /// A batch writing to `episodesDirectory` and recording progress in `store`.
    public init(store: StateStore, episodesDirectory: String, settings: TransferEngine.Settings) {
        self.store = store
        self.episodesDirectory = episodesDirectory
        self.settings = settings
    }

    /// Where unfinished data lives: hidden, inside the Episodes directory (same file system, so
    /// finishing is a rename), never under a final name.
    public var partialDirectory: String { episodesDirectory + "/.partial" }

    /// Downloads `items`, telling `report` what happens; returns one result per item, in order.
    public func run(_ items: [DownloadItem], report: (DownloadUpdate) -> Void) throws -> [DownloadResult] {
        var results: [Int: DownloadResult] = [:]
        var pending: [Int: (item: DownloadItem, record: DownloadRecord)] = [:]
        try FileIO.makeDirectory(partialDirectory, mode: 0o755)

        let queue = EventQueue<TransferEvent>()
        let engine = try TransferEngine(settings: settings) { queue.post($0) }
        defer { engine.shutdown() }

        for (index, item) in items.enumerated() {
            switch try prepare(item) {
            case .settled(let result):
                results[index] = result
                report(.finished(result))
            case .fetch(let record, let partialPath):
                pending[index] = (item, record)
                engine.start(TransferRequest(id: index, url: record.url, partialPath: partialPath))
            }
        }

        while !pending.isEmpty, let event = queue.next() {
            switch event {
            case .started(let id):
                if let item = pending[id]?.item { report(.started(item)) }
            case .progress(let snapshot):
                report(.progress(snapshot.compactMap { progress in pending[progress.id].map { ($0.item, progress) } }))
            case .completed(let done):
                guard let (item, record) = pending.removeValue(forKey: done.id) else { continue }
                let result = finish(item, record, done)
                results[done.id] = result
                report(.finished(result))
            case .failed(let failure):
                guard let (item, claimed) = pending.removeValue(forKey: failure.id) else { continue }
                var record = claimed
                record.state = .failed
                record.error = failure.reason
                try? store.saveDownload(record)
                let result = DownloadResult(item: item, state: .failed, path: nil, bytes: 0, error: failure.reason)
                results[failure.id] = result
                report(.finished(result))
            }
        }
        return items.indices.compactMap { results[$0] }
    }

    /// What to do with one item.
    private enum Preparation {
        /// Nothing to fetch: no media, already done, busy elsewhere, or already in place.
        case settled(DownloadResult)
        /// Claimed (the stored record says so): fetch it into `partialPath`.
        case fetch(DownloadRecord, partialPath: String)
    }

    /// Claims `item` in the progress buffer, unless it needs no transfer.
    private func prepare(_ item: DownloadItem) throws -> Preparation {
        guard let url = item.entry.enclosureURL else {
            return .settled(DownloadResult(item: item, state: .failed, path: nil, bytes: 0, error: "the feed gives no media file for this episode"))
        }
        let partialPath = partialDirectory + "/" + Self.partialName(feed: item.feed, identity: item.entry.identity)
        var record = DownloadRecord(
            feed: item.feed, identity: item.entry.identity, podcastTitle: item.podcastTitle, title: item.entry.title,
            url: url, mediaType: item.entry.enclosureType, published: item.entry.published)
        record.total = item.entry.enclosureLength
        record.partialPath = partialPath
        switch try store.claimDownload(record, for: .current) {
        case .alreadyDownloaded(let path):
            return .settled(DownloadResult(item: item, state: .skipped, path: path, bytes: 0, error: "already downloaded"))
        case .busy(let pid):
            return .settled(DownloadResult(item: item, state: .skipped, path: nil, bytes: 0, error: "being downloaded by process \(pid)"))
        case .claimed:
            record.state = .downloading
            record.owner = .current
        }
        // A finished file already in place (a lost or reset store) is recognized, not fetched again.
        let path = folder(for: item) + "/" + fileName(for: item, suffix: "")
        if let size = Self.fileSize(path), item.entry.enclosureLength.map({ $0 == size }) ?? (size > 0),
            try store.downloadOwning(path: path) == nil {
            record.state = .downloaded
            record.path = path
            record.partialPath = nil
            record.bytes = size
            try store.saveDownload(record)
            return .settled(DownloadResult(item: item, state: .skipped, path: path, bytes: 0, error: "already in the Episodes directory"))
        }
        return .fetch(record, partialPath: partialPath)
    }

    /// Moves a completed transfer to its final name and records it.
    private func finish(_ item: DownloadItem, _ record: DownloadRecord, _ done: CompletedTransfer) -> DownloadResult {
        var record = record
        record.effectiveURL = done.effectiveURL
        record.etag = done.etag
        record.lastModified = done.lastModified
        record.bytes = done.bytes
        record.total = done.bytes
        do {
            let folder = folder(for: item)
            if madeFolders.insert(folder).inserted { try FileIO.makeDirectory(folder, mode: 0o755) }
            guard let partial = record.partialPath else { throw SystemError(call: "rename", path: folder, code: ENOENT) }
            try FileIO.syncData(partial)
            let path = try moveIntoPlace(partial, in: folder, for: item)
            try? FileIO.syncData(folder)
            record.state = .downloaded
            record.path = path
            record.partialPath = nil
            record.error = nil
            try store.saveDownload(record)
            return DownloadResult(item: item, state: .downloaded, path: path, bytes: done.bytes, error: nil)
        } catch {
            record.state = .failed
            record.error = "\(error)"
            try? store.saveDownload(record)
            return DownloadResult(item: item, state: .failed, path: nil, bytes: done.bytes, error: "\(error)")
        }
    }

    private func folder(for item: DownloadItem) -> String {
        episodesDirectory + "/" + EpisodeFileName.folder(podcastTitle: item.podcastTitle)
    }

    private func fileName(for item: DownloadItem, suffix: String) -> String {
        EpisodeFileName.file(
            title: item.entry.title, published: item.entry.published, mediaType: item.entry.enclosureType,
            url: item.entry.enclosureURL ?? "", suffix: suffix)
    }

    /// Gives the partial file the first of `name`, `name (2)`, `name (3)`, … that is free (or this
    /// episode's own). `link` never replaces an existing file, so two processes finishing episodes
    /// with the same name cannot overwrite each other's file.
    private func moveIntoPlace(_ partial: String, in folder: String, for item: DownloadItem) throws -> String {
        var attempt = 1
        while true {
            let path = folder + "/" + fileName(for: item, suffix: attempt == 1 ? "" : " (\(attempt))")
            attempt += 1
            let owner = try store.downloadOwning(path: path)
            let mine = owner.map { $0.feed == item.feed && $0.identity == item.entry.identity } ?? false
            if mine {
                guard rename(partial, path) == 0 else { throw SystemError.last("rename", path: path) }
                return path
            }
            guard owner == nil else { continue }
            if link(partial, path) == 0 {
                unlink(partial)
                return path
            }
            guard errno == EEXIST else { throw SystemError.last("link", path: path) }
        }
    }

    /// The partial file's name: a stable hash of the episode's key.
    static func partialName(feed: String, identity: String) -> String {
        StableHash.hex(feed + "\n" + identity) + ".part"
    }

    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
