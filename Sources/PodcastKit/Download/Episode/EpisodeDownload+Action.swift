/// What an episode's state machine asks of the batch, and how it can end.
extension EpisodeDownload {
    /// What the batch does for the episode.
    enum Action: Equatable {
        /// Start an attempt that continues `resume` (nil: from byte 0), not before `notBefore`.
        case transfer(resume: ResumePoint?, notBefore: ContinuousClock.Instant?)
        /// Stop the running transfer; it comes back as a failure (`transferFailed`).
        case cancelTransfer
        /// Let the transfer waiting at its answer write its body (`TransferEngine.goAhead`).
        case goAhead
        /// Check, tag and hash the complete file off the batch's thread; its outcome comes back
        /// through `prepared`.
        case prepare(FilePreparation)
        /// Tell the user.
        case report(DownloadUpdate)
        /// Write the record as it stands (a validator worth keeping arrived).
        case record
        /// Make the first `bytes` of the partial file durable, tell `synced`, then write the record.
        case checkpoint(bytes: Int64)
        /// Remove the partial file (its bytes can never be part of the file).
        case discardPartial
        /// End the episode short of its file (its record closed as `Ending` says, then settled).
        case end(Ending)
        /// Settle the episode with `result`: its file is in place and its companions have ended.
        case settle(DownloadResult)
        /// Carry out what one of its companion fetches asks.
        case companion(CompanionFetch.Action)
        /// Stop every episode of the batch.
        case stopBatch(BatchOutcome.Stop)
    }

    /// How an episode ends short of being downloaded.
    enum Ending: Equatable {
        /// Resumable later, its partial file holding `bytes`.
        case paused(because: String, bytes: Int64)
        /// Failed; the partial file holds `bytes` and stays for `podcast resume` unless `final`.
        case failed(because: String, bytes: Int64, final: Bool)
        /// Withdrawn by `podcast cancel`: partial file and record go.
        case cancelled
    }

    /// Why a running transfer was stopped, carried out when it comes back.
    enum PendingStop: Equatable {
        /// `podcast pause` or `podcast cancel` asked.
        case asked(StopRequest)
        /// The server's answer does not fit in the room its file system has: the reason.
        case noRoom(String)

        /// How the episode ends for it, its partial file holding `bytes`.
        func ending(bytes: Int64) -> Ending {
            switch self {
            case .asked(.pause): .paused(because: "paused", bytes: bytes)
            case .asked(.cancel): .cancelled
            case .noRoom(let why): .paused(because: why, bytes: bytes)
            }
        }
    }

    /// How a progress report is written.
    enum Checkpoint: Equatable {
        /// Not yet: the answer has not arrived.
        case none
        /// Only how far it got, for `status`.
        case progress
        /// The record, with the answer's validator; no sync (a kill -9 in the same boot keeps
        /// every byte the page cache holds).
        case record
        /// The first `bytes` made durable, then the record (`synced`).
        case sync(bytes: Int64)
    }
}
