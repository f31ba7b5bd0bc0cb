import PodcastText

/// One companion file (a transcript, chapters, an image, a cover) being fetched for an episode
/// that is already in place: through the batch's engine like the episodes (its concurrency, its
/// per-host limit), retried by the same scheduler, continued from its partial file after a
/// dropped connection. Never media: an HTML transcript is a transcript, and it is never counted as
/// an episode. Its failure is a warning; the episode stays downloaded.
struct CompanionFetch {
    /// The episode it goes with.
    let item: DownloadItem
    /// What it is.
    let kind: LibraryFile.Kind
    /// Where it comes from.
    let url: String
    /// Where its bytes are written until it is complete (in the batch's partial folder).
    let partialPath: String
    /// The folder it goes into.
    let folder: String
    /// Its name before the extension: the episode's media file's (or `cover`).
    let stem: String
    /// Its extension, when the kind fixes it; nil for images, whose extension the answer's type tells.
    let fileExtension: String?
    /// What the server said about the bytes written so far, to continue them.
    var resume = ResumeRecord()
    /// Failures so far, for the retry scheduler.
    var history = RetryPolicy.History(bestOffset: 0)
    /// Whether the current attempt continues the partial file.
    var resumed = false

    /// The largest companion file taken: transcripts, chapters and artwork are far smaller. Fixed:
    /// `max-episode-size` (`--max-size`) is the limit of media files, not of these.
    static let maxBytes: Int64 = 64 * 1024 * 1024

    /// What follows a failed attempt of a companion.
    enum Retry: Equatable {
        /// Another attempt, continuing the partial file from `resume` (nil: from byte 0), not before `notBefore`.
        case attempt(resume: ResumePoint?, notBefore: ContinuousClock.Instant?)
        /// It is dropped (its partial file goes); `warning` tells the user, nil when the batch stopped.
        case drop(warning: String?)
    }

    /// What follows `failure` of its current attempt: another attempt when the scheduler allows one
    /// (from the partial file only when a validator vouches for it), else it is dropped with a
    /// warning, the episode kept without it. A stopped batch (`batchStopped`) drops it silently.
    mutating func retry(after failure: FailedTransfer, batchStopped: Bool, scheduler: inout RetryScheduler) -> Retry {
        let next: RetryScheduler.Next = batchStopped
            ? .fail(final: false) : scheduler.next(after: failure, resumed: resumed, history: &history, url: url)
        switch next {
        case .attempt(let fromPartial, let notBefore):
            let point = fromPartial ? resume.point(at: failure.bytes) : nil
            resumed = point != nil
            return .attempt(resume: point, notBefore: notBefore)
        case .fail, .giveUp, .stopAll:
            return .drop(warning: batchStopped ? nil : "its \(kind.label) was not saved (\(failure.reason)); the episode is kept without it")
        }
    }

    /// The request for the next attempt, continuing the partial file from `resume` when given.
    func request(id: Int, resume: ResumePoint?, notBefore: ContinuousClock.Instant?) -> TransferRequest {
        var request = TransferRequest(
            id: id, url: url, partialPath: partialPath, expectsMedia: false, resume: resume, notBefore: notBefore,
            writesBack: false, maxSize: Self.maxBytes)
        request.sizeCap = .companionFile
        return request
    }

    /// The file's path once complete, its extension from the answer's `contentType` when the
    /// kind does not fix it.
    func destination(contentType: String?) -> String {
        folder + "/" + stem + "." + (fileExtension ?? Self.imageExtension(contentType: contentType, url: url))
    }

    /// An image's extension: from its type, else its URL, else `jpg`.
    static func imageExtension(contentType: String?, url: String) -> String {
        let type = contentType?.split(separator: ";").first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
        switch type {
        case "image/jpeg", "image/jpg", "image/pjpeg": return "jpg"
        case "image/png": return "png"
        case "image/webp": return "webp"
        case "image/gif": return "gif"
        default:
            let fromURL = EpisodeFileName.urlExtension(url)
            return ["jpg", "jpeg", "png", "webp", "gif"].contains(fromURL ?? "") ? fromURL ?? "jpg" : "jpg"
        }
    }
}
