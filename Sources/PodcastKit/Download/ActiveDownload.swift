/// One episode a batch is fetching: its record in the progress buffer as this process knows it,
/// the server's answer to the current attempt, and its history of failures.
final class ActiveDownload {
    /// The engine request id: the item's index in the batch.
    let id: Int
    let item: DownloadItem
    /// The record, kept current in memory and written at checkpoints and at the end.
    var record: DownloadRecord
    let partialPath: String
    /// The podcast's folder in the Episodes directory.
    let folder: String
    /// Where the finished file goes unless another episode's file is there.
    let preferredPath: String
    /// The current attempt's answer, once the server gave one.
    var response: TransferResponse?
    var history = RetryPolicy.History()
    /// Bytes received over every attempt in this run.
    var received: Int64 = 0
    /// When the record was last checkpointed (nil: not since the current answer arrived).
    var lastCheckpoint: ContinuousClock.Instant?
    /// Where the first attempt continues the partial file left by an earlier run, if it does.
    var plannedResume: ResumePoint?
    /// Whether the current attempt asked for a range.
    var attemptResumed = false
    /// Whether the file was already fetched again because it did not match the feed's digest.
    var refetchedForIntegrity = false
    /// The bytes of the partial file last handed to the disk's writeback (see
    /// `DownloadBatch.startWriteback`).
    var writeback: Range<Int64> = 0..<0

    init(id: Int, item: DownloadItem, record: DownloadRecord, partialPath: String, folder: String, preferredPath: String) {
        self.id = id
        self.item = item
        self.record = record
        self.partialPath = partialPath
        self.folder = folder
        self.preferredPath = preferredPath
    }

    /// Folds the server's answer into the record: validator, length, where it came from. A
    /// truncated partial file (`startedOver`) has nothing durable any more.
    func accept(_ response: TransferResponse) {
        self.response = response
        lastCheckpoint = nil
        // No validator for an encoded body: its partial file is never continued, only restarted.
        record.etag = response.encoded ? nil : response.etag
        record.lastModified = response.encoded ? nil : response.lastModified
        record.total = response.total
        record.effectiveURL = response.effectiveURL
        if response.startedOver != nil {
            record.durableBytes = 0
            record.bytes = 0
        }
    }

    /// Where a new attempt continues: the partial file's `bytes`, checked by the validator the
    /// server gave for them; nil (start over) when there is none.
    func resumePoint(at bytes: Int64) -> ResumePoint? {
        guard bytes > 0, record.resumeValidator != nil else { return nil }
        return ResumePoint(offset: bytes, etag: record.etag, lastModified: record.lastModified, total: record.total)
    }
}
