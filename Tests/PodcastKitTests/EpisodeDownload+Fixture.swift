@testable import PodcastKit

extension EpisodeDownload {
    /// Episode 1 of a test batch, fetching `item` from `url` into `/tmp/x` (nothing is written
    /// there), continuing `resume` of an earlier run's record when given.
    static func fixture(_ item: DownloadItem, url: String, resume: ResumePoint? = nil) -> EpisodeDownload {
        var record = DownloadRecord(queuing: item, url: url)
        record.resume.partialPath = "/tmp/x/.partial/one.part"
        var previous: DownloadRecord?
        if let resume {
            previous = record
            previous?.resume.etag = resume.etag
            previous?.bytes = resume.offset
            previous?.resume.total = resume.total
        }
        let filing = EpisodeFiling(
            directory: "/tmp/x", settings: item.library ?? LibrarySettings(), values: NameValues(podcast: "Show", title: "one", fileExtension: "mp3"),
            show: nil, episode: nil)
        return EpisodeDownload(
            id: 1, item: item, record: record, partialPath: "/tmp/x/.partial/one.part", filing: filing, previous: previous,
            resumePlan: resume)
    }
}
