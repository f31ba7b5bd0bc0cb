import FoundationEssentials
import Glibc
import PodcastPlatform

/// The batch's part in its episodes' companion files (the best transcript, the chapters, the
/// artwork, the show's cover, the info file): which an episode in place gets, the info file
/// written at once, and a fetched file checked, placed and recorded. Each file is fetched by a
/// `CompanionFetch` its episode owns; what is batch-wide is here: the podcast folders whose cover
/// the batch has seen to. Its problems are warnings: the episode stays downloaded.
struct CompanionFiling {
    private let store: StateStore
    /// Podcast folders whose cover this batch has seen to.
    private var coverFolders: Set<String> = []

    init(store: StateStore) {
        self.store = store
    }

    /// What `filing` asks to go with `item`'s media file at `path` and is not there yet: the
    /// best transcript, the chapters, the artwork and the show's cover, to be fetched (in that
    /// order); the info file is written at once. What the feed does not offer is skipped.
    mutating func wanted(of item: DownloadItem, filing: EpisodeFiling, at path: String, report: (DownloadUpdate) -> Void) -> [CompanionFile] {
        let wanted = filing.settings.companions
        guard !wanted.isEmpty, let slash = path.lastIndex(of: "/") else { return [] }
        let folder = String(path[..<slash])
        let fileName = path[path.index(after: slash)...]
        let stem = String(fileName[..<(fileName.lastIndex(of: ".") ?? fileName.endIndex)])
        guard let show = filing.show else {
            report(.warning(item, "its companion files need the feed's details, and the feed is not in the cache; "
                + "run podcast episodes <feed>, then podcast download again"))
            return []
        }
        let present: Set<LibraryFile.Kind>
        do {
            present = Set(try store.libraryFiles.files(of: item.key).filter { access($0.path, F_OK) == 0 }.map(\.kind))
        } catch {
            report(.warning(item, "could not look up its companion files (\(error)); they are not fetched"))
            return []
        }
        let episode = filing.episode
        var files: [CompanionFile] = []
        func fetch(_ kind: LibraryFile.Kind, from url: String?, as content: CompanionCheck.Content) {
            guard let url, !present.contains(kind) else { return }
            files.append(CompanionFile(
                kind: kind, url: url, content: content, partialPath: ProcessTemporary.path(in: folder, for: path + "\n" + kind.rawValue),
                folder: folder, stem: stem))
        }
        if wanted.contains(.transcript), let best = TranscriptFormat.best(of: episode?.transcripts ?? [], order: filing.settings.transcriptTypes) {
            fetch(.transcript, from: best.transcript.url, as: best.format.content)
        }
        if wanted.contains(.chapters) {
            fetch(.chapters, from: episode?.chaptersURL, as: .json(fileExtension: "chapters.json"))
        }
        if wanted.contains(.image) {
            fetch(.image, from: episode?.image ?? show.image, as: .image)
            if let cover = cover(of: show, in: filing.podcastFolder) { files.append(cover) }
        }
        if wanted.contains(.info), !present.contains(.info) {
            writeInfo(of: item, show: show, episode: episode, to: folder + "/" + stem + ".info.json", report: report)
        }
        return files
    }

    /// The show's artwork as `cover.<ext>` in its podcast folder, once: not when the folder has a
    /// `cover.*` already (podcast's or the user's), nor twice in one batch.
    private mutating func cover(of show: Feed, in folder: String?) -> CompanionFile? {
        guard let folder, let image = show.image, coverFolders.insert(folder).inserted else { return nil }
        let names = (try? FileIO.names(in: folder)) ?? []
        guard !names.contains(where: { $0.hasPrefix("cover.") }) else { return nil }
        return CompanionFile(
            kind: .cover, url: image, content: .image, partialPath: ProcessTemporary.path(in: folder, for: folder + "\ncover"),
            folder: folder, stem: "cover")
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

    /// Saves `file`, which arrived whole (`done`) for `item`: unless `CompanionCheck` refuses
    /// what arrived, it is put in place (named as its bytes say, for an image) and recorded.
    /// Returns the warning when it was not saved; nil when it was.
    func save(_ file: CompanionFile, _ done: CompletedTransfer, of item: DownloadItem) -> String? {
        do {
            // Companions are small (`CompanionFile.maxBytes`): read whole, for their check and digest.
            let bytes = try FileIO.bytes(of: file.partialPath, in: 0..<done.bytes)
            switch CompanionCheck.verdict(file.content, of: bytes, from: file.url) {
            case .refused(let why):
                // Ownership: the companion's own temporary file (`ProcessTemporary`).
                unlink(file.partialPath)
                return file.notSaved(why)
            case .accepted(let fileExtension):
                var digest = SHA2(.sha256)
                bytes.withUnsafeBytes { digest.update($0) }
                let placing = LibraryFile(
                    path: file.destination(fileExtension: fileExtension), feed: item.feed,
                    identity: file.kind == .cover ? nil : item.entry.identity, kind: file.kind, bytes: done.bytes,
                    sha256: SHA2.hex(digest.finish()), subscription: file.kind == .cover ? item.subscription : nil)
                return try placeCompanion(file.partialPath, as: placing)
            }
        } catch {
            // Ownership: the companion's own temporary file (`ProcessTemporary`).
            unlink(file.partialPath)
            return "could not save its \(file.kind.label) from \(file.url): \(error)"
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

extension TranscriptFormat {
    /// What a transcript of this format must be (`CompanionCheck`), and its file's extension.
    var content: CompanionCheck.Content {
        switch self {
        case .json: .json(fileExtension: fileExtension)
        case .html: .html(fileExtension: fileExtension)
        case .srt, .vtt, .text: .text(fileExtension: fileExtension)
        }
    }
}
