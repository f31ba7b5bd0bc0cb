import Glibc
import PodcastPlatform

extension DownloadBatch {
    /// Episodes queued in the engine beyond those running: enough that the engine fills a
    /// finished transfer's slot at once all through the longest stretch this thread is busy
    /// elsewhere (finishing a group of small files), at about 1 KiB each.
    private static let queuedInEngine = 64

    /// How many episodes may be in flight at once: the running ones and the queued ones.
    var activeWindow: Int { settings.concurrency + Self.queuedInEngine }

    /// Claims the next group of items in the progress buffer (one transaction), settles those that
    /// need no transfer and queues the others to be started (`activate`). Groups start small and
    /// double, so the first transfers start at once instead of after thousands of claims; the run
    /// loop handles the engine's events between groups, so the engine never waits for them. When
    /// the store cannot take a group (a full disk, a store locked too long), that group and every
    /// item not claimed yet fail at once, not the batch (the episodes already running still end in
    /// their own way), and not one busy wait per group.
    func claimNextGroup(report: (DownloadUpdate) -> Void) {
        var group: [(index: Int, record: DownloadRecord)] = []
        group.reserveCapacity(roster.claims.groupSize)
        while group.count < roster.claims.groupSize, let index = roster.claims.takeUnclaimed() {
            guard let record = claimableRecord(for: roster[index]) else {
                settleEarly(index, .skipped, error: DownloadResult.noMedia, report: report)
                continue
            }
            group.append((index, record))
        }
        roster.claims.groupClaimed()
        guard !group.isEmpty else { return }
        let answers: [DownloadRecords.Claim]
        do {
            answers = try store.downloads.claim(group.map(\.record), for: .current, force: force)
        } catch {
            // Never recorded, so `podcast resume` cannot know them.
            let reason = "could not record the download: \(error); run podcast download again for it"
            let unclaimed = group.map(\.index) + Array(roster.claims.takeAllUnclaimed())
            for index in unclaimed {
                settleEarly(index, .failed, error: reason, report: report)
            }
            return
        }
        for ((index, record), claim) in zip(group, answers) {
            switch claim {
            case .alreadyDownloaded(let path):
                completeInPlace(index, record, at: path, why: "already downloaded", report: report)
            case .busy(let pid):
                settleEarly(index, .skipped, error: "being downloaded by process \(pid)", report: report)
            case .claimed(let previous):
                roster.claims.wait(index, previous: previous)
            }
        }
    }

    /// Starts claimed episodes, oldest first, while fewer than `activeWindow` are in flight
    /// (`inFlight`: running or queued in the engine, not waiting for a retry or to be finished).
    /// Episodes get their state machine only here, so thousands of queued ones cost an index each.
    func activate(inFlight: Int, report: (DownloadUpdate) -> Void) {
        var inFlight = inFlight
        while inFlight < activeWindow, let index = roster.claims.takeWaiting() {
            guard admit(index, report: report) else { continue }
            if let why = roomProblem(of: index) {
                perform(active[index]?.noRoom(why), for: index, report: report)
                continue
            }
            perform(active[index]?.begin(), for: index, report: report)
            inFlight += 1
        }
    }

    /// Why the admitted episode `index` cannot start for want of room on its file system, if so:
    /// its size is the server's from an earlier attempt, else the feed's.
    private func roomProblem(of index: Int) -> String? {
        guard let download = active[index], let size = download.knownSize else { return nil }
        return FreeSpaceCheck.problem(size: size, have: download.plannedResume?.offset ?? 0, in: room(for: index))
    }

    /// The room on the file system of episode `index`'s partial file as it stands now: what it
    /// has free, less what the batch's other episodes in flight there (running or queued in the
    /// engine) still need, those of known size. Episodes whose partial files are in the same
    /// folder count as on the same file system; a subscription's own Episodes directory is
    /// counted apart even when it shares a disk.
    func room(for index: Int) -> FreeSpaceCheck.Room {
        guard let folder = active[index]?.partialFolder else { return FreeSpaceCheck.Room(free: nil, floor: settings.minFreeSpace) }
        var reserved: Int64 = 0
        for (other, download) in active where other != index && download.phase.holdsTransferSlot && download.partialFolder == folder {
            let (sum, overflow) = reserved.addingReportingOverflow(download.stillNeeded ?? 0)
            reserved = overflow ? .max : sum
        }
        return FreeSpaceCheck.Room(free: FileIO.calls.freeSpace(String(folder)), reserved: reserved, floor: settings.minFreeSpace)
    }

    /// Makes the claimed episode `index` active (its state machine in `active`): false when it
    /// was placed by a run killed before recording it (`adoptPlaced`), or cannot be prepared (it
    /// is settled then).
    func admit(_ index: Int, report: (DownloadUpdate) -> Void) -> Bool {
        let item = roster[index]
        // The claim's record is made again from the item rather than kept: thousands of waiting
        // episodes would otherwise hold a record each.
        guard let record = claimableRecord(for: item) else { return false }
        do {
            guard let download = try claimed(index, item, record, previous: roster.claims.takePrevious(of: index), report: report) else {
                return false
            }
            // Admitted in the batch's order: so its name is decided (`EpisodePlacement.hold`).
            try placement.hold(download, store: store)
            active[index] = download
            return true
        } catch {
            settleEarly(index, .failed, error: "\(error)", report: report)
            return false
        }
    }

    /// The record that claims `item`'s episode (state `queued`), or nil when it has no media file.
    private func claimableRecord(for item: DownloadItem) -> DownloadRecord? {
        guard let url = item.entry.enclosureURL else { return nil }
        var record = DownloadRecord(queuing: item, url: url)
        record.library = item.library ?? filings.library
        let directory = EpisodePlacement.partialDirectory(in: placement.directory(for: item))
        record.resume.partialPath = directory + "/" + Self.partialName(of: item.key)
        return record
    }

    /// A claimed episode, ready to fetch, continuing its partial file when the earlier run's resume
    /// data allows. A file found where the episode would go is never taken for it: podcast did not
    /// write it, so the download gets a free name instead (`EpisodePlacement`).
    private func claimed(
        _ index: Int, _ item: DownloadItem, _ claimedRecord: DownloadRecord, previous: DownloadRecord?,
        report: (DownloadUpdate) -> Void
    ) throws -> EpisodeDownload? {
        var record = claimedRecord
        record.owner = .current
        // A file fetched again (`--force`, or found damaged by `verify`) stays this episode's
        // until the new copy replaces it, with the digest that tells whether it is still the file
        // podcast wrote (`FileOwnership`).
        record.path = previous?.path
        record.sha256 = previous?.sha256
        record.fileStamp = previous?.fileStamp
        let partialPath = record.resume.partialPath ?? ""
        let filing = filing(for: item, report: report)
        // Only an episode claimed before can have been placed by a killed run.
        if previous != nil, try adoptPlaced(index, item, record, filing: filing, report: report) { return nil }
        // A resumed episode's own Episodes directory may lack the partial folder (removed by hand).
        let partialFolder = String(partialPath[..<(partialPath.lastIndex(of: "/") ?? partialPath.startIndex)])
        if partialFolder != placement.partialDirectory {
            do throws(SystemError) { try placement.makeFolder(partialFolder) } catch {
                // Only a subscription's own directory differs from the batch's.
                throw EpisodesDirectoryError(directory: item.episodesDirectory ?? partialFolder, error: error, subscriptionFeed: item.feed)
            }
        }
        guard var previous else {
            return EpisodeDownload(
                id: index, item: item, record: record, partialPath: partialPath, filing: filing, previous: nil, resumePlan: nil)
        }
        if let earlier = previous.resume.partialPath, earlier != partialPath {
            previous.resume.partialPath = ResumePlan.adoptPartial(from: earlier, to: partialPath) ? partialPath : nil
        }
        let (resume, why) = ResumePlan.plan(previous, partialPath: partialPath)
        if let why { report(.warning(item, "started over: \(why)")) }
        return EpisodeDownload(
            id: index, item: item, record: record, partialPath: partialPath, filing: filing, previous: previous, resumePlan: resume)
    }

    /// Finishes the episode a run moved into place and was killed before recording (its
    /// `Placement`): the file under one of the episode's names that is that file (device, inode)
    /// with that size and digest is recorded as downloaded; true then. Any other file there is not
    /// podcast's, and the episode is fetched as usual.
    private func adoptPlaced(
        _ index: Int, _ item: DownloadItem, _ claimedRecord: DownloadRecord, filing: EpisodeFiling, report: (DownloadUpdate) -> Void
    ) throws -> Bool {
        guard let placement = try store.placements.recorded(for: item.key) else { return false }
        // Forgotten once the file is recorded or none is found; kept when recording it failed,
        // so the next run can still.
        let names = (1...Self.namesTried).lazy.map { attempt in filing.path(of: filing.name(suffix: attempt == 1 ? "" : " (\(attempt))")) }
        if let found = try Self.placedFile(placement, among: names, isRecorded: { try store.libraryFiles.recordedFile(path: $0) != nil }) {
            let path = found.path
            var record = claimedRecord
            record.state = .downloaded
            record.path = path
            record.bytes = placement.bytes
            record.sha256 = placement.sha256
            record.fileStamp = found.stamp
            record.resume = ResumeRecord()
            try store.downloads.saveCompleted(record)
            forgetPlacement(of: item, report: report)
            // Ownership: the episode's own partial file (left when a tagged copy was placed).
            if let partial = claimedRecord.resume.partialPath { unlink(partial) }
            completeInPlace(index, claimedRecord, at: path, why: "already downloaded (placed by a run stopped before it recorded it)", report: report)
            return true
        }
        forgetPlacement(of: item, report: report)
        return false
    }

    /// The first of `names` (an episode's names, in order) that holds the file `placement` recorded:
    /// that file (device, inode), with that size and digest, and not a file another record names
    /// (`isRecorded`); with its stamp. Nil when none does: a file found there is not podcast's.
    static func placedFile(
        _ placement: Placement, among names: some Sequence<String>, isRecorded: (String) throws -> Bool
    ) throws -> (path: String, stamp: FileIO.Stamp)? {
        for path in names {
            guard let stamp = FileIO.stamp(ofName: path), stamp.device == placement.device, stamp.inode == placement.inode,
                FileIO.regularFileSize(path) == placement.bytes, try !isRecorded(path),
                SHA2.hex(try SHA2.digest(ofFile: path, .sha256)) == placement.sha256
            else { continue }
            return (path, stamp)
        }
        return nil
    }

    /// How many of an episode's names (`name`, `name (2)`, …) `adoptPlaced` looks under.
    private static let namesTried = 32

    private func forgetPlacement(of item: DownloadItem, report: (DownloadUpdate) -> Void) {
        do {
            try store.placements.forget([item.key])
        } catch {
            report(.warning(item, "could not forget its placement (\(error)); the next run looks again"))
        }
    }

    /// How `item`'s files are made: its own settings or the batch's, with what its feed says when
    /// they need that.
    func filing(for item: DownloadItem, report: (DownloadUpdate) -> Void) -> EpisodeFiling {
        filings.filing(for: item, in: placement.directory(for: item)) { report(.warning(item, $0)) }
    }

    /// Skips episode `index`, claimed with `record` and found already downloaded at `path` (`why`
    /// says how), once the companion files it lacks are fetched: for them it becomes active, its
    /// machine found in place (`EpisodeDownload.foundInPlace`), and is settled when they have ended.
    private func completeInPlace(_ index: Int, _ record: DownloadRecord, at path: String, why: String, report: (DownloadUpdate) -> Void) {
        let item = roster[index]
        let filing = filing(for: item, report: report)
        let files = companions.wanted(of: item, filing: filing, at: path, report: report)
        guard !files.isEmpty else { return settleEarly(index, .skipped, path: path, error: why, report: report) }
        var download = EpisodeDownload(
            id: index, item: item, record: record, partialPath: record.resume.partialPath ?? "", filing: filing, previous: nil, resumePlan: nil)
        download.foundInPlace(DownloadResult(item: item, state: .skipped, path: path, bytes: 0, error: why))
        active[index] = download
        perform(active[index]?.fetchCompanions(files, batchStop: stop), for: index, report: report)
    }

    /// The partial file's name: a stable hash of the episode's key.
    static func partialName(of key: EpisodeKey) -> String {
        StableHash.hex(key.feed + "\n" + key.identity) + ".part"
    }

    /// True for a name `partialName` gives (with `extra` after it, as `.opus` for the copies an
    /// earlier version tagged in place): only such files in `.partial` are podcast's to sweep,
    /// never another file someone put there.
    static func isPartialName(_ name: String, extra: String = "") -> Bool {
        let hex = name.utf8.prefix(16)
        return name.utf8.count == 16 + ".part".utf8.count + extra.utf8.count && name.hasSuffix(".part" + extra)
            && hex.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// Records the end of an episode that never became active.
    private func settleEarly(_ index: Int, _ state: DownloadResult.State, path: String? = nil, error: String, report: (DownloadUpdate) -> Void) {
        let result = DownloadResult(item: roster[index], state: state, path: path, bytes: 0, error: error)
        roster.settle(index, result)
        report(.finished(result))
    }

    /// Pauses the claimed episodes that never started, when the batch stops; an earlier run's
    /// partial file stays theirs, with its resume data.
    func pauseWaiting(because stop: BatchOutcome.Stop, report: (DownloadUpdate) -> Void) {
        let indexes = roster.claims.takeAllWaiting()
        guard !indexes.isEmpty else { return }
        // One transaction for them all; each record is still written whole, or not at all.
        var paused: [DownloadItem] = []
        do {
            try store.transaction {
                for index in indexes where admit(index, report: report) {
                    paused.append(roster[index])
                    perform(active[index]?.batchStoppedBeforeStart(stop), for: index, report: report)
                }
            }
        } catch {
            for item in paused {
                report(.warning(item, "the pause could not be recorded (\(error)); podcast resume will start it over"))
            }
        }
    }

    /// Once a second (called with each progress snapshot), takes the requests that `podcast pause`
    /// and `podcast cancel` addressed to this process and hands each to its episode's machine: a
    /// running one stops its transfer and carries the request out when it comes back; one still
    /// waiting to start carries it out at once.
    func pollStopRequests(report: (DownloadUpdate) -> Void) {
        // Requests stay in the store until every episode is claimed: one for an episode not
        // claimed yet would otherwise be taken and find nothing to stop.
        guard !roster.hasUnclaimed, chores.stopRequestPollDue() else { return }
        let requests: [AddressedStopRequest]
        do {
            requests = try store.stopRequests.take(for: .current)
        } catch {
            // Nothing was taken: the requests stay in the store and are read at the next poll.
            return
        }
        for request in requests {
            if let id = active.first(where: { $0.value.record.key == request.key })?.key {
                perform(active[id]?.stopAsked(request.request), for: id, report: report)
            } else if case let items = roster.items, let index = roster.claims.takeWaiting(where: { items[$0].key == request.key }),
                admit(index, report: report)
            {
                perform(active[index]?.stopAskedBeforeStart(request.request), for: index, report: report)
            }
        }
    }
}
