import Glibc

extension DownloadBatch {
    /// Moves completed transfers to their final names, together: each file's data is synced, then
    /// one transaction places every file and records it, then each folder is synced once (no syncs
    /// on a file system in memory). A crash between placing and recording leaves a file that the
    /// next run recognizes in place.
    func finish(_ completed: [CompletedTransfer], report: (DownloadUpdate) -> Void) {
        guard !completed.isEmpty else { return }
        var placing: [(download: ActiveDownload, done: CompletedTransfer)] = []
        for done in completed {
            guard let download = active[done.id] else { continue }
            download.received += done.received
            do {
                guard try matchesPublishedDigest(download, report: report) else { continue }
                if syncsToDisk { try FileIO.syncData(download.partialPath) }
                if madeFolders.insert(download.folder).inserted { try FileIO.makeDirectory(download.folder, mode: 0o755) }
                placing.append((download, done))
            } catch {
                fail(download, because: "\(error)", bytes: done.bytes, final: false, report: report)
            }
        }
        var placed: [(download: ActiveDownload, path: String)] = []
        do {
            try store.transaction {
                for (download, done) in placing {
                    let path = try moveIntoPlace(download)
                    download.record.completed(by: done, at: path)
                    try store.saveDownloaded(download.record)
                    placed.append((download, path))
                }
            }
        } catch {
            // The files placed before the failure are in place; their records went with the rollback.
            for (download, path) in placed {
                if let problem = save(download.record) {
                    report(.warning(download.item, "saved as \(path) but not recorded (\(problem)); the next run recognizes the file in place"))
                }
            }
            for (download, done) in placing where !placed.contains(where: { $0.download === download }) {
                fail(download, because: "\(error)", bytes: done.bytes, final: false, report: report)
            }
        }
        if syncsToDisk {
            for folder in Set(placed.map(\.download.folder)) {
                try? FileIO.syncData(folder)
            }
        }
        for (download, path) in placed {
            if let declared = download.item.entry.enclosureLength, declared > 1, declared != download.record.bytes {
                report(.warning(download.item, "the feed says \(declared) bytes, the server sent \(download.record.bytes); kept the server's file"))
            }
            settle(download, DownloadResult(item: download.item, state: .downloaded, path: path, bytes: download.received, error: nil), report: report)
        }
    }

    /// Checks the file against the feed's `podcast:integrity` digest, when it gives one. The
    /// first mismatch fetches the file again from the start (a corrupted transfer or a changed
    /// file); the second fails the episode: the publisher's file or digest is wrong.
    private func matchesPublishedDigest(_ download: ActiveDownload, report: (DownloadUpdate) -> Void) throws -> Bool {
        guard let check = download.item.entry.integrity?.check, try !check.verify(file: download.partialPath) else {
            return true
        }
        if !download.refetchedForIntegrity {
            download.refetchedForIntegrity = true
            report(.warning(download.item, "the file does not match the feed's \(check) digest: fetching it again"))
            unlink(download.partialPath)
            if let stop {
                pause(download, bytes: 0, because: stop.reason, report: report)
            } else {
                start(download, resume: nil, after: nil)
            }
            return false
        }
        let reason = "the file does not match the \(check) digest the feed publishes (podcast:integrity), "
            + "twice; the publisher's file or digest is wrong"
        fail(download, because: reason, bytes: 0, final: true, report: report)
        return false
    }

    func folder(for item: DownloadItem) -> String {
        (item.episodesDirectory ?? episodesDirectory) + "/" + EpisodeFileName.folder(podcastTitle: item.podcastTitle)
    }

    func fileName(for item: DownloadItem, suffix: String) -> String {
        EpisodeFileName.file(
            title: item.entry.title, published: item.entry.published, mediaType: item.entry.enclosureType,
            url: item.entry.enclosureURL ?? "", suffix: suffix)
    }

    /// Gives `download`'s partial file the first of its preferred name, `name (2)`, `name (3)`, …
    /// that is free (or this episode's own). The move never replaces an existing file, so two
    /// processes finishing episodes with the same name cannot overwrite each other's file.
    private func moveIntoPlace(_ download: ActiveDownload) throws -> String {
        let (partial, item) = (download.partialPath, download.item)
        var attempt = 1
        while true {
            let path = attempt == 1 ? download.preferredPath : download.folder + "/" + fileName(for: item, suffix: " (\(attempt))")
            attempt += 1
            let owner = try store.downloadOwning(path: path)
            let mine = owner == item.key
            if mine {
                guard rename(partial, path) == 0 else { throw SystemError.last("rename", path: path) }
                return path
            }
            guard owner == nil else { continue }
            if try FileIO.moveWithoutReplacing(partial, to: path) { return path }
        }
    }
}

extension DownloadRecord {
    /// The record of a download that ended well, its file at `path`. `StateStore.saveDownloaded`
    /// writes exactly these fields.
    mutating func completed(by done: CompletedTransfer, at path: String) {
        state = .downloaded
        self.path = path
        partialPath = nil
        error = nil
        effectiveURL = done.effectiveURL
        etag = done.etag
        lastModified = done.lastModified
        bytes = done.bytes
        durableBytes = done.bytes
        total = done.bytes
        failures = 0
        finalError = false
        speed = nil
    }
}
