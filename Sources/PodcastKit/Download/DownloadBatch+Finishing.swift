import Glibc

extension DownloadBatch {
    /// Moves completed transfers to their final names, together: each file's data is synced, then
    /// one transaction places every file and records it, then each folder is synced once (no syncs
    /// on a file system in memory). A crash between placing and recording leaves a file that the
    /// next run recognizes in place.
    func finish(_ completed: [CompletedTransfer], report: (DownloadUpdate) -> Void) {
        guard !completed.isEmpty else { return }
        var placing: [CompletedTransfer] = []
        for done in completed {
            guard let download = active[done.id] else { continue }
            do {
                if let check = download.item.entry.integrity?.check, try !check.verify(file: download.partialPath) {
                    perform(active[done.id]?.digestMismatched("\(check)", batchStop: stop), for: done.id, report: report)
                    continue
                }
                if syncsToDisk { try FileIO.syncData(download.partialPath) }
                try placement.makeFolder(download.folder)
                placing.append(done)
            } catch {
                perform([.end(.failed(because: "\(error)", bytes: done.bytes, final: false))], for: done.id, report: report)
            }
        }
        var placed: [(id: Int, path: String)] = []
        do {
            try store.transaction {
                for done in placing {
                    guard let download = active[done.id] else { continue }
                    let path = try placement.moveIntoPlace(download, store: store)
                    active[done.id]?.placed(at: path, by: done)
                    if let record = active[done.id]?.record { try store.saveDownloaded(record) }
                    placed.append((done.id, path))
                }
            }
        } catch {
            // The files placed before the failure are in place; their records went with the rollback.
            for (id, path) in placed {
                guard let download = active[id], let problem = save(download.record) else { continue }
                report(.warning(download.item, "saved as \(path) but not recorded (\(problem)); the next run recognizes the file in place"))
            }
            for done in placing where !placed.contains(where: { $0.id == done.id }) {
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
        for (id, path) in placed {
            guard let download = active[id] else { continue }
            let bytes = download.record.bytes
            if let declared = download.item.entry.enclosureLength, declared > 1, declared != bytes {
                report(.warning(download.item, "the feed says \(declared) bytes, the server sent \(bytes); kept the server's file"))
            }
            settle(id, DownloadResult(item: download.item, state: .downloaded, path: path, bytes: download.received, error: nil, fileSize: bytes), report: report)
        }
    }
}

extension DownloadRecord {
    /// The record of a download that ended well, its file at `path`. `StateStore.saveDownloaded`
    /// writes exactly these fields.
    mutating func completed(by done: CompletedTransfer, at path: String) {
        state = .downloaded
        self.path = path
        resume.partialPath = nil
        error = nil
        effectiveURL = done.effectiveURL
        resume.etag = done.etag
        resume.lastModified = done.lastModified
        bytes = done.bytes
        resume.durableBytes = done.bytes
        resume.total = done.bytes
        failures = 0
        finalError = false
        speed = nil
    }
}
