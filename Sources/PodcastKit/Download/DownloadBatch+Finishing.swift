import Glibc
import PodcastPlatform
import PodcastText

extension DownloadBatch {
    /// Moves completed transfers to their final names, together: each file is checked against the
    /// feed's digest, tagged when asked (the checks apply to the bytes as served, before tags), its
    /// data synced, then one transaction places every file and records it with its size and
    /// SHA-256, then each folder is synced once (no syncs on a file system in memory). Which file
    /// each is was recorded before (`recordPlacements`): a crash between placing and recording
    /// leaves a file the next run knows as its own by that (`adoptPlaced`). A tagged
    /// copy goes into place instead of the partial file, which is removed only once that is
    /// recorded: until then the partial file is the one its record describes. An MP3 whose tags
    /// are spliced into it has left the partial file's name first (`InPlaceSplice`): a failure
    /// after that costs the episode a fresh fetch, so its folder is made before. Then the file a
    /// re-fetched episode had under another name goes, and its companions are started.
    func finish(_ completed: [(done: CompletedTransfer, file: DigestedFile)], report: (DownloadUpdate) -> Void) {
        guard !completed.isEmpty else { return }
        // The tagged copies made for these files: by the end each is in place or removed.
        var copies = completed.compactMap { if case .tagged(let copy)? = $0.file.tagging { copy.path } else { nil } }
        // Ownership: tagged copies this batch made; by the end each is placed (renamed away) or unwanted.
        defer { for copy in copies { unlink(copy) } }
        if syncsToDisk { syncSplicedFirst(completed) }
        var placing: [(done: CompletedTransfer, file: FinishedFile)] = []
        for (done, digested) in completed {
            guard let download = active[done.id] else { continue }
            do {
                try placement.makeFolder(download.folder)
                guard let file = try checkedFile(download, done, digested, report: report) else { continue }
                if file.source != download.partialPath { copies.append(file.source) }
                if syncsToDisk { try FileIO.syncData(file.source) }
                placing.append((done, file))
            } catch {
                perform([.end(.failed(because: "\(error)", bytes: servedBytesLeft(download, done), final: false))], for: done.id, report: report)
            }
        }
        recordPlacements(&placing, report: report)
        var placed: [(id: Int, path: String, replaced: RecordedFile?)] = []
        var recorded: Set<Int> = []
        do {
            try store.transaction {
                for (done, file) in placing {
                    guard let download = active[done.id] else { continue }
                    // What the store says of the earlier copy, read before the new one's record replaces it.
                    let replaced = try download.record.path.flatMap { path throws(StoreError) in try store.recordedFile(path: path) }
                    let path = try placement.moveIntoPlace(download, from: file.source, store: store)
                    var placedFile = file
                    placedFile.stamp = FileIO.stamp(ofName: path)
                    active[done.id]?.placed(at: path, by: done, file: placedFile)
                    if let record = active[done.id]?.record {
                        try store.saveDownloaded(record)
                        try store.forgetPlacements([record.key])
                    }
                    placed.append((done.id, path, replaced?.path == path ? nil : replaced))
                }
            }
            recorded = Set(placed.map(\.id))
        } catch {
            // The files placed before the failure are in place; their records went with the rollback.
            for (id, path, _) in placed {
                guard let download = active[id] else { continue }
                guard let problem = save(download.record) else {
                    recorded.insert(id)
                    do {
                        try store.forgetPlacements([download.item.key])
                    } catch {
                        report(.warning(download.item, "recorded as \(path), but its placement was not forgotten (\(error)); the next run forgets it"))
                    }
                    continue
                }
                report(.warning(download.item, "saved as \(path) but not recorded (\(problem)); the next run records it"))
            }
            for (done, _) in placing where !placed.contains(where: { $0.id == done.id }) {
                guard let download = active[done.id] else { continue }
                perform([.end(.failed(because: "\(error)", bytes: servedBytesLeft(download, done), final: false))], for: done.id, report: report)
            }
        }
        for (done, file) in placing where recorded.contains(done.id) {
            guard let partial = active[done.id]?.partialPath, file.source != partial else { continue }
            // Ownership: the episode's own partial file, once its tagged copy is placed and recorded.
            unlink(partial)
        }
        if syncsToDisk {
            for folder in Set(placed.compactMap { active[$0.id]?.folder }) {
                do {
                    try FileIO.syncData(folder)
                } catch {
                    guard let item = placed.lazy.compactMap({ self.active[$0.id] }).first(where: { $0.folder == folder })?.item else { continue }
                    report(.warning(item, "could not sync the folder \(folder) (\(error)); after a power loss its new files may be missing"))
                }
            }
        }
        for (id, path, replaced) in placed {
            guard let download = active[id] else { continue }
            if let replaced { removeReplaced(replaced, of: download.item, report: report) }
            let served = completed.first { $0.done.id == id }?.done.bytes ?? download.record.bytes
            if let declared = download.item.entry.enclosureLength, declared > 1, declared != served {
                report(.warning(download.item, "the feed says \(declared) bytes, the server sent \(served); kept the server's file"))
            }
            startCompanions(of: download.item, filing: download.filing, at: path, report: report)
            settle(id, DownloadResult(
                item: download.item, state: .downloaded, path: path, bytes: download.received, error: nil,
                fileSize: download.record.bytes), report: report)
        }
    }

    /// Records which file each of `placing` is (`Placement`) before any takes its name: a kill -9
    /// between a file's move and the record that names it then leaves a row by which the next run
    /// knows the file as its own (`adoptPlaced`), instead of a file it must leave to the user and
    /// fetch again. When the store cannot take them, none is moved: they fail as a failed record would.
    private func recordPlacements(_ placing: inout [(done: CompletedTransfer, file: FinishedFile)], report: (DownloadUpdate) -> Void) {
        let placements = placing.compactMap { done, file -> Placement? in
            guard let key = active[done.id]?.item.key, let stamp = FileIO.stamp(ofName: file.source) else { return nil }
            return Placement(key: key, device: stamp.device, inode: stamp.inode, bytes: file.bytes, sha256: file.sha256)
        }
        do {
            try store.recordPlacements(placements)
        } catch {
            for (done, _) in placing {
                guard let download = active[done.id] else { continue }
                perform([.end(.failed(because: "\(error)", bytes: servedBytesLeft(download, done), final: false))], for: done.id, report: report)
            }
            placing = []
        }
    }

    /// Syncs the files whose tags go into them in place before any of them leaves its partial
    /// file's name (`InPlaceSplice`): from that move until the batch records the file, a kill -9
    /// costs the episode a fresh fetch, and with the episodes' data on the disk already, that is
    /// the group's splices, their small syncs and the transaction (milliseconds on an SSD), not
    /// the time to write out every file of the group. (A file tagged only after the feed's digest
    /// was checked is synced once it is spliced, with the others' tagged files.)
    private func syncSplicedFirst(_ completed: [(done: CompletedTransfer, file: DigestedFile)]) {
        for (done, digested) in completed {
            guard case .spliceInPlace? = digested.tagging, let path = active[done.id]?.partialPath else { continue }
            do {
                try FileIO.syncData(path)
            } catch {
                // The sync of the tagged file before it is placed meets the same error and reports it.
            }
        }
    }

    /// The completed file checked against the feed's `podcast:integrity` digest (from the
    /// SHA-256 the `FileDigester` took, when that is the algorithm; else read again), then tagged
    /// when asked: what goes into place, with its size and SHA-256. Nil when it does not match the
    /// feed's digest: the episode's machine was told, and fetches it again or fails. Without a
    /// feed's digest to check first, the digester already tagged a copy, or planned and hashed the
    /// MP3's tags that are spliced into it here (`tagsForDigester`).
    private func checkedFile(
        _ download: EpisodeDownload, _ done: CompletedTransfer, _ digested: DigestedFile, report: (DownloadUpdate) -> Void
    ) throws -> FinishedFile? {
        let path = download.partialPath
        var served = digested.sha256
        if let check = download.item.entry.integrity?.check {
            let digest = try served ?? SHA2.digest(ofFile: path, .sha256)
            served = digest
            guard try check.matches(file: path, sha256: digest) else {
                perform(active[done.id]?.digestMismatched("\(check)", batchStop: stop), for: done.id, report: report)
                return nil
            }
        }
        var tagging = digested.tagging
        if tagging == nil && download.filing.settings.tag {
            tagging = TagWriter.write(EpisodeTags(download), to: path)
        }
        switch tagging {
        case .tagged(let copy)?:
            let digest = try copy.sha256 ?? SHA2.digest(ofFile: copy.path, .sha256)
            return FinishedFile(bytes: copy.bytes, sha256: SHA2.hex(digest), source: copy.path)
        case .spliceInPlace(let splice, let sha256)?:
            if let file = try splicedFile(download, done, splice, sha256: sha256, report: report) { return file }
        case .untagged(let why)?:
            report(.warning(download.item, "kept untagged: \(why)"))
        case nil:
            break
        }
        let digest = try served ?? SHA2.digest(ofFile: path, .sha256)
        return FinishedFile(bytes: done.bytes, sha256: SHA2.hex(digest), source: path)
    }

    /// The MP3 of `download` with the tags `splice` plans, made as it is placed, with its size and
    /// SHA-256 (`sha256`, taken as it arrived, else read now). Nil when the splice was refused
    /// before the served file changed (a full disk): it then goes into place as served, with a
    /// warning. After a later failure nothing of it is left to place or resume.
    private func splicedFile(
        _ download: EpisodeDownload, _ done: CompletedTransfer, _ splice: InPlaceSplice, sha256: [UInt8]?, report: (DownloadUpdate) -> Void
    ) throws -> FinishedFile? {
        let tagged = TagWriter.taggedPath(of: download.partialPath)
        let bytes: Int64
        do {
            bytes = try splice.make(at: tagged, from: download.partialPath)
        } catch {
            guard servedBytesLeft(download, done) > 0 else { throw error }
            report(.warning(download.item, "kept untagged: \(error)"))
            return nil
        }
        do {
            return FinishedFile(bytes: bytes, sha256: SHA2.hex(try sha256 ?? SHA2.digest(ofFile: tagged, .sha256)), source: tagged)
        } catch {
            // Ownership: the tagged file this batch made, not yet placed.
            unlink(tagged)
            throw error
        }
    }

    /// The served bytes of `download` still in its partial file: all of them, or none once an
    /// MP3's tags were spliced into it (or a splice failed halfway), when it has left that name.
    private func servedBytesLeft(_ download: EpisodeDownload, _ done: CompletedTransfer) -> Int64 {
        FileIO.regularFileSize(download.partialPath) == done.bytes ? done.bytes : 0
    }

    /// Removes the file a re-fetched episode had under another name (the template or its values
    /// changed, or the user changed the old copy, which then stays), with its companions: the new
    /// copy replaces it, also in the podcast's playlists.
    private func removeReplaced(_ old: RecordedFile, of item: DownloadItem, report: (DownloadUpdate) -> Void) {
        let problems = LibraryDeletion(store: store).removeReplaced(old, of: item.key) + Playlist.refresh(feed: item.feed, store: store)
        for problem in problems { report(.warning(item, problem)) }
    }
}

extension EpisodeDownload {
    /// The tags the `FileDigester` writes into the completed file (hashing it as it will be once
    /// tagged); nil when it is not tagged, or not before the batch checked it against the feed's
    /// digest (the check is on the bytes as served), and then tags it.
    var tagsForDigester: EpisodeTags? { filing.settings.tag && item.entry.integrity == nil ? EpisodeTags(self) : nil }
}

extension EpisodeTags {
    /// The tags of `download`'s episode, with what its feed says when it could be read.
    init(_ download: EpisodeDownload) {
        let item = download.item
        title = item.entry.title
        album = item.podcastTitle
        artist = download.filing.show?.author
        year = item.entry.published.map { Int(UTCDate.day($0).prefix(4)) ?? 0 }
        track = download.filing.episode?.episodeNumber
        comment = download.filing.episode?.description
    }
}

/// A finished file as it is on disk once checked and tagged: what `podcast verify` checks it against.
struct FinishedFile: Equatable {
    /// Its size.
    var bytes: Int64
    /// Its SHA-256, lowercase hex.
    var sha256: String
    /// The file that goes into place: the partial file, its tagged copy, or the partial file
    /// moved to the name of that copy with its tags spliced in.
    var source: String
    /// Which file it is once in place, and its ctime then (`FileOwnership` checks it is still that one).
    var stamp: FileIO.Stamp?
}

extension DownloadRecord {
    /// The record of a download that ended well, its file at `path` as `file` says. `StateStore.saveDownloaded`
    /// writes exactly these fields.
    mutating func completed(by done: CompletedTransfer, at path: String, file: FinishedFile) {
        state = .downloaded
        self.path = path
        sha256 = file.sha256
        fileStamp = file.stamp
        resume.partialPath = nil
        error = nil
        effectiveURL = done.effectiveURL
        resume.etag = done.etag
        resume.lastModified = done.lastModified
        bytes = file.bytes
        resume.durableBytes = file.bytes
        resume.total = file.bytes
        failures = 0
        finalError = false
        speed = nil
    }
}
