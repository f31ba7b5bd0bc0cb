import PodcastPlatform

/// `podcast verify`: finished files checked against what podcast recorded when it wrote them
/// (size, then SHA-256). A damaged or missing media file marks its episode so that `download`
/// and `resume` fetch it again (a damaged copy is no longer podcast's: `FileOwnership` leaves it,
/// and the new copy takes a free name beside it); a damaged or missing companion is forgotten, so
/// the next `download` of its episode fetches a missing one again and leaves a damaged one alone. Reads every file whole: call it off the cooperative pool.
public struct LibraryCheck {
    /// What one file's check found.
    public enum Verdict: Sendable, Equatable {
        /// Size and digest are as recorded.
        case intact
        /// Its size is as recorded; no digest was recorded (a file from before digests were kept).
        case sizeOnly
        /// The file is gone.
        case missing
        /// It differs from what was recorded, as this says.
        case damaged(String)

        /// True for a file that is as podcast wrote it (as far as can be told).
        public var isGood: Bool { self == .intact || self == .sizeOnly }
    }

    /// One checked file.
    public struct Finding: Sendable, Equatable {
        /// The file.
        public var path: String
        /// The episode's title (or the podcast's, for its cover and playlist).
        public var title: String
        /// What was found.
        public var verdict: Verdict
        /// True for an episode's media file, false for a companion, cover or playlist.
        public var isMedia: Bool
    }

    let store: StateStore

    /// A check through `store`'s records.
    public init(store: StateStore) {
        self.store = store
    }

    /// Checks the media files of `records` (downloaded ones) and their companions, and marks
    /// what failed; `progress` hears of each file as it is checked.
    public func run(_ records: [DownloadRecord], progress: (Finding) -> Void) throws -> [Finding] {
        var findings: [Finding] = []
        for record in records where record.state == .downloaded {
            guard let path = record.path else { continue }
            let verdict = Self.verdict(path: path, bytes: record.bytes, sha256: record.sha256)
            if !verdict.isGood {
                try store.downloads.markDamaged(record.key, reason: "\(Self.describe(verdict)) (podcast verify); fetch it again with podcast resume")
            }
            let finding = Finding(path: path, title: record.title, verdict: verdict, isMedia: true)
            findings.append(finding)
            progress(finding)
            for file in try store.libraryFiles.files(of: record.key) {
                let verdict = Self.verdict(path: file.path, bytes: file.bytes, sha256: file.sha256)
                if !verdict.isGood { try store.libraryFiles.forget(path: file.path) }
                let finding = Finding(path: file.path, title: record.title, verdict: verdict, isMedia: false)
                findings.append(finding)
                progress(finding)
            }
        }
        return findings
    }

    /// What the file at `path` is against the recorded `bytes` and `sha256`.
    static func verdict(path: String, bytes: Int64, sha256: String?) -> Verdict {
        guard let size = FileIO.regularFileSize(path) else { return .missing }
        guard size == bytes else { return .damaged("it has \(size) bytes, not the \(bytes) podcast wrote") }
        guard let sha256 else { return .sizeOnly }
        do {
            let digest = SHA2.hex(try SHA2.digest(ofFile: path, .sha256))
            return digest == sha256 ? .intact : .damaged("its SHA-256 is not the one podcast recorded")
        } catch {
            return .damaged("it cannot be read: \(error)")
        }
    }

    /// The verdict in words, for messages.
    public static func describe(_ verdict: Verdict) -> String {
        switch verdict {
        case .intact: "intact"
        case .sizeOnly: "intact in size (no digest was recorded for it)"
        case .missing: "missing"
        case .damaged(let why): "damaged: \(why)"
        }
    }
}
