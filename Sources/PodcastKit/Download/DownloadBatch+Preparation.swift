import Glibc

extension DownloadBatch {
    /// Claims at most so many episodes per transaction: one transaction per episode costs more
    /// than the transfer of a small file, one for thousands holds the write lock too long.
    private static let claimsPerTransaction = 256
    /// The first transaction claims this many, and each next one twice as many up to the most,
    /// so the first transfers start at once instead of after thousands of claims.
    static let firstClaims = 16

    /// Episodes queued in the engine beyond those running: enough that the engine fills a
    /// finished transfer's slot at once all through the longest stretch this thread is busy
    /// elsewhere (finishing a group of small files), at about 1 KiB each.
    private static let queuedInEngine = 64

    /// How many episodes may be in flight at once: the running ones and the queued ones.
    var activeWindow: Int { settings.concurrency + Self.queuedInEngine }

    /// True while some items are not claimed yet.
    var hasUnclaimed: Bool { nextToClaim < items.endIndex }

    /// Claims the next group of items in the progress buffer (one transaction), settles those that
    /// need no transfer and queues the others to be started (`activate`). Groups start small and
    /// double, so the first transfers start at once instead of after thousands of claims; the run
    /// loop handles the engine's events between groups, so the engine never waits for them. When
    /// the store cannot take a group (a full disk, a store locked too long), that group and every
    /// item not claimed yet fail at once, not the batch (the episodes already running still end in
    /// their own way), and not one busy wait per group.
    func claimNextGroup(report: (DownloadUpdate) -> Void) {
        var group: [(index: Int, record: DownloadRecord)] = []
        group.reserveCapacity(claimGroupSize)
        while hasUnclaimed && group.count < claimGroupSize {
            let index = nextToClaim
            nextToClaim += 1
            guard let record = claimableRecord(for: items[index]) else {
                settleEarly(index, items[index], .failed, error: "the feed gives no media file for this episode", report: report)
                continue
            }
            group.append((index, record))
        }
        claimGroupSize = min(claimGroupSize * 2, Self.claimsPerTransaction)
        guard !group.isEmpty else { return }
        let claims: [StateStore.Claim]
        do {
            claims = try store.claimDownloads(group.map(\.record), for: .current)
        } catch {
            // Never recorded, so `podcast resume` cannot know them.
            let reason = "could not record the download: \(error); run podcast download again for it"
            let unclaimed = group.map(\.index) + Array(nextToClaim..<items.endIndex)
            nextToClaim = items.endIndex
            for index in unclaimed {
                settleEarly(index, items[index], .failed, error: reason, report: report)
            }
            return
        }
        for ((index, _), claim) in zip(group, claims) {
            switch claim {
            case .alreadyDownloaded(let path):
                settleEarly(index, items[index], .skipped, path: path, error: "already downloaded", report: report)
            case .busy(let pid):
                settleEarly(index, items[index], .skipped, error: "being downloaded by process \(pid)", report: report)
            case .claimed(let previous):
                waiting.append(index)
                if let previous { previousRecords[index] = previous }
            }
        }
    }

    /// Starts claimed episodes, oldest first, while fewer than `activeWindow` are in flight
    /// (`inFlight`: running or queued in the engine, not waiting for a retry or to be finished).
    /// Episodes become `ActiveDownload`s only here, so thousands of queued ones cost an index each.
    func activate(inFlight: Int, report: (DownloadUpdate) -> Void) {
        var inFlight = inFlight
        while inFlight < activeWindow, let index = nextWaiting() {
            if admit(index, report: report) {
                perform(active[index]?.begin(), for: index, report: report)
                inFlight += 1
            }
        }
    }

    /// The next claimed episode waiting to start, taken off the queue (an index moves, not the
    /// queue: thousands of episodes must not cost a copy each).
    private func nextWaiting() -> Int? {
        guard firstWaiting < waiting.count else { return nil }
        let index = waiting[firstWaiting]
        firstWaiting += 1
        if firstWaiting == waiting.count {
            waiting.removeAll()
            firstWaiting = 0
        }
        return index
    }

    /// Takes the first waiting episode whose item `matches` off the queue; nil when none does.
    func takeWaiting(where matches: (DownloadItem) -> Bool) -> Int? {
        guard let position = waiting[firstWaiting...].firstIndex(where: { matches(items[$0]) }) else { return nil }
        return waiting.remove(at: position)
    }

    /// Every claimed episode still waiting to start, taken off the queue.
    func takeAllWaiting() -> [Int] {
        let indexes = Array(waiting[firstWaiting...])
        waiting.removeAll()
        firstWaiting = 0
        return indexes
    }

    /// Makes the claimed episode `index` active (its state machine in `active`): false when its
    /// file is recognized in place or it cannot be prepared (it is settled then).
    func admit(_ index: Int, report: (DownloadUpdate) -> Void) -> Bool {
        let item = items[index]
        // The claim's record is made again from the item rather than kept: thousands of waiting
        // episodes would otherwise hold a record each.
        guard let record = claimableRecord(for: item) else { return false }
        do {
            guard let download = try claimed(index, item, record, previous: previousRecords.removeValue(forKey: index), report: report) else {
                return false
            }
            active[index] = download
            return true
        } catch {
            settleEarly(index, item, .failed, error: "\(error)", report: report)
            return false
        }
    }

    /// The record that claims `item`'s episode (state `queued`), or nil when it has no media file.
    private func claimableRecord(for item: DownloadItem) -> DownloadRecord? {
        guard let url = item.entry.enclosureURL else { return nil }
        var record = DownloadRecord(queuing: item, url: url)
        let directory = item.episodesDirectory.map { $0 + "/.partial" } ?? partialDirectory
        record.partialPath = directory + "/" + Self.partialName(of: item.key)
        return record
    }

    /// A claimed episode: recognized in place (nil), or ready to fetch, continuing its partial
    /// file when the earlier run's resume data allows.
    private func claimed(
        _ index: Int, _ item: DownloadItem, _ claimedRecord: DownloadRecord, previous: DownloadRecord?,
        report: (DownloadUpdate) -> Void
    ) throws -> EpisodeDownload? {
        var record = claimedRecord
        record.owner = .current
        let partialPath = record.partialPath ?? ""
        // A finished file already in place (a lost or reset store) is recognized, not fetched again.
        let folder = folder(for: item)
        let path = folder + "/" + fileName(for: item, suffix: "")
        // An earlier record (a crash mid-finish) may have left the file in a folder made since.
        if previous != nil || folderExisted(folder), let size = Self.fileSize(path), item.entry.enclosureLength.map({ $0 == size }) ?? (size > 0),
            try store.downloadOwning(path: path) == nil {
            record.state = .downloaded
            record.path = path
            record.partialPath = nil
            record.bytes = size
            try store.saveDownload(record)
            unlink(partialPath)
            settleEarly(index, item, .skipped, path: path, error: "already in the Episodes directory", report: report)
            return nil
        }
        // A resumed episode's own Episodes directory may lack the partial folder (removed by hand).
        let partialFolder = String(partialPath[..<(partialPath.lastIndex(of: "/") ?? partialPath.startIndex)])
        if partialFolder != partialDirectory, madeFolders.insert(partialFolder).inserted {
            try FileIO.makeDirectory(partialFolder, mode: 0o755)
        }
        guard var previous else {
            return EpisodeDownload(
                id: index, item: item, record: record, partialPath: partialPath, folder: folder, preferredPath: path,
                previous: nil, resumePlan: nil)
        }
        if let earlier = previous.partialPath, earlier != partialPath {
            previous.partialPath = Self.adoptPartial(from: earlier, to: partialPath) ? partialPath : nil
        }
        let (resume, why) = Self.resumePlan(previous, partialPath: partialPath)
        if let why { report(.warning(item, "started over: \(why)")) }
        return EpisodeDownload(
            id: index, item: item, record: record, partialPath: partialPath, folder: folder, preferredPath: path,
            previous: previous, resumePlan: resume)
    }

    /// Moves a partial file an earlier run left elsewhere (another Episodes directory, an older
    /// layout) to `path`, so it is continued rather than orphaned; one that cannot be moved (another
    /// file system) is removed, since nothing would ever continue it. True when it was moved.
    static func adoptPartial(from earlier: String, to path: String) -> Bool {
        guard fileSize(earlier) != nil else { return false }
        if rename(earlier, path) == 0 { return true }
        unlink(earlier)
        return false
    }

    /// True when `folder` existed the first time the batch looked: only then can it hold finished
    /// files the store does not know. One look per folder, not a look per episode for a file that
    /// cannot be there.
    private func folderExisted(_ folder: String) -> Bool {
        if let known = foldersFound[folder] { return known }
        let exists = access(folder, F_OK) == 0
        foldersFound[folder] = exists
        return exists
    }

    /// Where the partial file of an earlier run can be continued, or why it cannot (nil reason:
    /// there was nothing worth keeping). After a kill -9 in the same boot every byte in the file
    /// is trusted (the page cache holds them); after a reboot only the durable ones.
    static func resumePlan(_ previous: DownloadRecord, partialPath: String) -> (ResumePoint?, why: String?) {
        guard previous.partialPath == partialPath, let size = fileSize(partialPath), size > 0 else { return (nil, nil) }
        let sameBoot = previous.dataBoot == ProcessOwner.currentBoot
        // Every count in the record was true of the file when written; a file holding less has
        // lost data the record vouched for, and nothing in it can be trusted.
        let vouched = sameBoot ? previous.bytes : previous.durableBytes
        if vouched > size {
            return (nil, "the record says \(vouched) bytes were saved but the partial file holds \(size)")
        }
        let trusted = sameBoot ? size : previous.durableBytes
        guard trusted > 0 else { return (nil, nil) }
        guard previous.resumeValidator != nil else {
            return (nil, "no ETag or Last-Modified was recorded to check the partial file against")
        }
        if let total = previous.total, trusted > total {
            return (nil, "the partial file (\(trusted) bytes) is longer than the server's file (\(total) bytes)")
        }
        return (ResumePoint(offset: trusted, etag: previous.etag, lastModified: previous.lastModified, total: previous.total), nil)
    }

    /// The partial file's name: a stable hash of the episode's key.
    static func partialName(of key: EpisodeKey) -> String {
        StableHash.hex(key.feed + "\n" + key.identity) + ".part"
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
