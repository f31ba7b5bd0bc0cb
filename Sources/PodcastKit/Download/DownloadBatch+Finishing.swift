import Glibc

extension DownloadBatch {
    /// Moves completed transfers to their final names, together: each file is checked against the
    /// feed's digest, tagged when asked (the checks apply to the bytes as served, before tags), its
    /// data synced, then one transaction places every file and records it with its size and
    /// SHA-256, then each folder is synced once (no syncs on a file system in memory). A crash
    /// between placing and recording leaves a file that the next run recognizes in place. Then the
    /// file a re-fetched episode had under another name goes, and its companions are started.
    func finish(_ completed: [(done: CompletedTransfer, file: DigestedFile)], report: (DownloadUpdate) -> Void) {
        guard !completed.isEmpty else { return }
        var placing: [(done: CompletedTransfer, file: FinishedFile)] = []
        for (done, digested) in completed {
            guard let download = active[done.id] else { continue }
            do {
                guard let file = try checkedFile(download, done, digested, report: report) else { continue }
                if syncsToDisk { try FileIO.syncData(download.partialPath) }
                try placement.makeFolder(download.folder)
                placing.append((done, file))
            } catch {
                perform([.end(.failed(because: "\(error)", bytes: done.bytes, final: false))], for: done.id, report: report)
            }
        }
        var placed: [(id: Int, path: String, replaced: String?)] = []
        do {
            try store.transaction {
                for (done, file) in placing {
                    guard let download = active[done.id] else { continue }
                    let replaced = download.record.path
                    let path = try placement.moveIntoPlace(download, store: store)
                    active[done.id]?.placed(at: path, by: done, file: file)
                    if let record = active[done.id]?.record { try store.saveDownloaded(record) }
                    placed.append((done.id, path, replaced == path ? nil : replaced))
                }
            }
        } catch {
            // The files placed before the failure are in place; their records went with the rollback.
            for (id, path, _) in placed {
                guard let download = active[id], let problem = save(download.record) else { continue }
                report(.warning(download.item, "saved as \(path) but not recorded (\(problem)); the next run recognizes the file in place"))
            }
            for (done, _) in placing where !placed.contains(where: { $0.id == done.id }) {
                perform([.end(.failed(because: "\(error)", bytes: done.bytes, final: false))], for: done.id, report: report)
            }
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

    /// The completed file checked against the feed's `podcast:integrity` digest (from the
    /// SHA-256 the `FileDigester` took, when that is the algorithm; else read again), then tagged
    /// when asked: its size and SHA-256 as it will be on disk. Nil when it does not match the
    /// feed's digest: the episode's machine was told, and fetches it again or fails. Without a
    /// feed's digest to check first, the digester already wrote the tags (`tagsForDigester`).
    private func checkedFile(
        _ download: EpisodeDownload, _ done: CompletedTransfer, _ digested: DigestedFile, report: (DownloadUpdate) -> Void
    ) throws -> FinishedFile? {
        let path = download.partialPath
        var served = digested.sha256
        if let check = download.item.entry.integrity?.check {
            let digest = try served ?? SHA2.digest(ofFile: path, .sha256)
            served = digest
            guard try check.matches(sha256: digest) ?? check.verify(file: path) else {
                perform(active[done.id]?.digestMismatched("\(check)", batchStop: stop), for: done.id, report: report)
                return nil
            }
        }
        var tagging = digested.tagging
        if tagging == nil && download.filing.settings.tag {
            tagging = TagWriter.write(EpisodeTags(download), to: path)
        }
        switch tagging {
        case .tagged(let digest, let bytes)?:
            // Tags change the file: what verify checks is the file as it is on disk.
            return FinishedFile(bytes: bytes, sha256: SHA2.hex(try digest ?? SHA2.digest(ofFile: path, .sha256)))
        case .untagged(let why)?:
            report(.warning(download.item, "kept untagged: \(why)"))
        case nil:
            break
        }
        let digest = try served ?? SHA2.digest(ofFile: path, .sha256)
        return FinishedFile(bytes: done.bytes, sha256: SHA2.hex(digest))
    }

    /// Removes the file a re-fetched episode had under another name (the template or its values
    /// changed), with its companions: the new copy replaces it, also in the podcast's playlists.
    private func removeReplaced(_ path: String, of item: DownloadItem, report: (DownloadUpdate) -> Void) {
        let deletion = LibraryDeletion(store: store)
        for problem in deletion.removeFile(at: path) + deletion.removeCompanions(of: item.key) + Playlist.refresh(feed: item.feed, store: store) {
            report(.warning(item, problem))
        }
    }
}

extension EpisodeDownload {
    /// The tags the `FileDigester` writes into the completed file (hashing it as it will be once
    /// tagged); nil when it is not tagged, or not before the batch checked it against the feed's
    /// digest (the check is on the bytes as served), and then tags it.
    var tagsForDigester: EpisodeTags? { filing.settings.tag && item.entry.integrity == nil ? EpisodeTags(self) : nil }
}

/// A finished file as it is on disk once checked and tagged: what `podcast verify` checks it against.
struct FinishedFile: Equatable {
    /// Its size.
    var bytes: Int64
    /// Its SHA-256, lowercase hex.
    var sha256: String
}

extension DownloadRecord {
    /// The record of a download that ended well, its file at `path` as `file` says. `StateStore.saveDownloaded`
    /// writes exactly these fields.
    mutating func completed(by done: CompletedTransfer, at path: String, file: FinishedFile) {
        state = .downloaded
        self.path = path
        sha256 = file.sha256
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
