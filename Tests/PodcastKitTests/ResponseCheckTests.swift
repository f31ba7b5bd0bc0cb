@testable import PodcastKit
import Testing

/// `ResponseCheck`: every row of the 200/206/416 decision table, on headers alone.
@Suite(.timeLimit(.minutes(5))) struct ResponseCheckTests {
    typealias Answer = ResponseCheck.Answer

    /// A partial file of 1,000 bytes of a 4,000-byte file, recorded with both validators.
    private let resume = ResumePoint(offset: 1_000, etag: "\"v1\"", lastModified: "Mon, 02 Nov 2026 10:00:00 GMT", total: 4_000)

    private func verdict(_ answer: Answer, resuming: ResumePoint? = nil) -> ResponseCheck.Verdict {
        ResponseCheck.verdict(on: answer, resuming: resuming)
    }

    private func isStartOver(_ verdict: ResponseCheck.Verdict, saying words: String) -> Bool {
        if case .startOver(let why) = verdict { return why.contains(words) }
        return false
    }

    // MARK: A fresh request

    @Test func aWholeFileIsTakenWithItsLength() {
        #expect(verdict(Answer(status: 200, etag: "\"v1\"", contentLength: 4_000)) == .takeWhole(total: 4_000, startedOver: nil))
    }

    @Test func anEmptyWholeFileAnsweringARangeRequestStartsOverInsteadOfEmptyingThePartialFile() {
        let empty = ResponseCheck.verdict(on: Answer(status: 200, contentLength: 0), resuming: resume, emptyBody: true)
        #expect(isStartOver(empty, saying: "empty file"))
        #expect(ResponseCheck.verdict(on: Answer(status: 200, contentLength: 0), resuming: nil, emptyBody: true) == .takeWhole(total: 0, startedOver: nil))
    }

    @Test func anEncodedWholeFileHasNoKnownLength() {
        #expect(verdict(Answer(status: 200, contentEncoding: "gzip", contentLength: 900)) == .takeWhole(total: nil, startedOver: nil))
        #expect(verdict(Answer(status: 200, contentEncoding: "identity", contentLength: 900)) == .takeWhole(total: 900, startedOver: nil))
    }

    @Test func aPartOfTheFileWhenTheWholeWasAskedForStartsOver() {
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: "bytes 0-99/4000")), saying: "part of the file"))
    }

    @Test(arguments: [404, 410, 500, 503, 301, 100])
    func otherStatusesAreFailures(status: Int) {
        #expect(verdict(Answer(status: status)) == .failure)
        #expect(verdict(Answer(status: status), resuming: resume) == .failure)
    }

    @Test func a416ToAWholeRequestIsAFailure() {
        #expect(verdict(Answer(status: 416, contentRange: "bytes */4000")) == .failure)
    }

    // MARK: 206 to a range request

    @Test func theRestOfTheSameFileIsAppended() {
        let answer = Answer(status: 206, contentRange: "bytes 1000-3999/4000", etag: "\"v1\"", lastModified: resume.lastModified)
        #expect(verdict(answer, resuming: resume) == .append(total: 4_000))
    }

    @Test func aRangeWithoutValidatorsIsAppendedOnItsRangeAlone() {
        #expect(verdict(Answer(status: 206, contentRange: "bytes 1000-3999/4000"), resuming: resume) == .append(total: 4_000))
        let unknownTotal = ResumePoint(offset: 1_000, etag: "\"v1\"", lastModified: nil, total: nil)
        #expect(verdict(Answer(status: 206, contentRange: "bytes 1000-4999/5000"), resuming: unknownTotal) == .append(total: 5_000))
    }

    /// The splice: a server that honours Range but ignores If-Range sends the rest of a changed
    /// file; its new ETag gives it away.
    @Test func aRangeOfAChangedFileStartsOver() {
        let answer = Answer(status: 206, contentRange: "bytes 1000-3999/4000", etag: "\"v2\"")
        #expect(isStartOver(verdict(answer, resuming: resume), saying: "changed"))
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: "bytes 1000-3999/4000", etag: "W/\"v1\""), resuming: resume), saying: "changed"))
    }

    @Test func aRangeOfAFileModifiedSinceStartsOver() {
        let byDate = ResumePoint(offset: 1_000, etag: nil, lastModified: "Mon, 02 Nov 2026 10:00:00 GMT", total: 4_000)
        let answer = Answer(status: 206, contentRange: "bytes 1000-3999/4000", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT")
        #expect(isStartOver(verdict(answer, resuming: byDate), saying: "changed"))
    }

    /// Equal ETags settle it: a CDN whose edges give different Last-Modified dates for the same
    /// file does not make every resume start over.
    @Test func anEqualETagWinsOverADifferentDate() {
        let answer = Answer(status: 206, contentRange: "bytes 1000-3999/4000", etag: "\"v1\"", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT")
        #expect(verdict(answer, resuming: resume) == .append(total: 4_000))
    }

    @Test func aRangeFromElsewhereStartsOver() {
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: "bytes 0-3999/4000", etag: "\"v1\""), resuming: resume), saying: "from 0 when 1000"))
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: "bytes 1001-3999/4000"), resuming: resume), saying: "from 1001"))
    }

    @Test func aRangeOfAnotherLengthStartsOver() {
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: "bytes 1000-4999/5000", etag: "\"v1\""), resuming: resume), saying: "now 5000 bytes"))
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: "bytes 1000-3999/*"), resuming: resume), saying: "of unknown length"))
    }

    @Test(arguments: [nil, "", "bytes", "bytes 1000-/4000", "items 1000-3999/4000", "bytes 3999-1000/4000", "bytes 1000-4000/4000"])
    func anUnusableContentRangeStartsOver(header: String?) {
        #expect(isStartOver(verdict(Answer(status: 206, contentRange: header), resuming: resume), saying: "no usable Content-Range"))
    }

    @Test func aCompressedRangeStartsOver() {
        let answer = Answer(status: 206, contentRange: "bytes 1000-3999/4000", etag: "\"v1\"", contentEncoding: "gzip")
        #expect(isStartOver(verdict(answer, resuming: resume), saying: "compresses"))
    }

    // MARK: 200 to a range request

    @Test func aWholeChangedFileIsTakenAndSaysTheFileChanged() {
        let answer = Answer(status: 200, etag: "\"v2\"", contentLength: 5_000)
        guard case .takeWhole(5_000, let why?) = verdict(answer, resuming: resume) else { Issue.record("not taken whole"); return }
        #expect(why.contains("changed"))
    }

    @Test func aWholeSameFileSaysRangesAreNotServed() {
        let answer = Answer(status: 200, etag: "\"v1\"", contentLength: 4_000)
        #expect(verdict(answer, resuming: resume) == .takeWhole(total: 4_000, startedOver: "the server does not resume downloads (it ignored the range request)"))
        #expect(verdict(Answer(status: 200), resuming: resume) == .takeWhole(total: nil, startedOver: "the server does not resume downloads (it ignored the range request)"))
    }

    // MARK: 416 to a range request

    @Test func a416ForExactlyTheRecordedLengthIsComplete() {
        let done = ResumePoint(offset: 4_000, etag: "\"v1\"", lastModified: nil, total: 4_000)
        #expect(verdict(Answer(status: 416, contentRange: "bytes */4000"), resuming: done) == .complete)
        #expect(verdict(Answer(status: 416, contentRange: "bytes */4000", etag: "\"v1\""), resuming: done) == .complete)
    }

    @Test func a416OfAnotherLengthOrWithoutOneStartsOver() {
        let done = ResumePoint(offset: 4_000, etag: "\"v1\"", lastModified: nil, total: 4_000)
        #expect(isStartOver(verdict(Answer(status: 416, contentRange: "bytes */5000"), resuming: done), saying: "5000 bytes"))
        #expect(isStartOver(verdict(Answer(status: 416), resuming: done), saying: "without saying"))
        let unrecorded = ResumePoint(offset: 4_000, etag: "\"v1\"", lastModified: nil, total: nil)
        #expect(isStartOver(verdict(Answer(status: 416, contentRange: "bytes */4000"), resuming: unrecorded), saying: "4000 bytes"))
        #expect(isStartOver(verdict(Answer(status: 416, contentRange: "bytes */4000", etag: "\"v2\""), resuming: done), saying: "changed"))
    }

    // MARK: The validator sent

    @Test func ifRangeCarriesAStrongETagElseTheDate() {
        #expect(resume.validator == "\"v1\"")
        #expect(ResumePoint(offset: 1, etag: "W/\"v1\"", lastModified: "date", total: nil).validator == "date")
        #expect(ResumePoint(offset: 1, etag: nil, lastModified: nil, total: nil).validator == nil)
    }
}

/// `BodyLimit`: how far a body may run past what we know of its length.
@Suite(.timeLimit(.minutes(5))) struct BodyLimitTests {
    private static let mebibyte: Int64 = 1024 * 1024
    private let cap: Int64 = 16 * 1024 * mebibyte

    @Test func theServersLengthWinsOverTheFeeds() {
        let limit = BodyLimit.forBody(serverLength: 2_000_000, feedLength: 1_000, maxSize: cap, cap: .maxEpisodeSize)
        #expect(limit == BodyLimit(bytes: 2_000_000 + 64 * Self.mebibyte, limit: .serverLength(2_000_000)))
    }

    @Test func aFeedLengthAloneAllowsAWideMargin() {
        #expect(BodyLimit.forBody(serverLength: nil, feedLength: 1_000, maxSize: cap, cap: .maxEpisodeSize) == BodyLimit(bytes: 1_000 + 64 * Self.mebibyte, limit: .feedLength(1_000)))
        #expect(BodyLimit.forBody(serverLength: nil, feedLength: 500 * Self.mebibyte, maxSize: cap, cap: .maxEpisodeSize) == BodyLimit(bytes: 1_000 * Self.mebibyte, limit: .feedLength(500 * Self.mebibyte)))
    }

    @Test func withNoLengthOnlyTheCapApplies() {
        #expect(BodyLimit.forBody(serverLength: nil, feedLength: nil, maxSize: cap, cap: .maxEpisodeSize) == BodyLimit(bytes: cap, limit: .cap(.maxEpisodeSize)))
        #expect(BodyLimit.forBody(serverLength: nil, feedLength: 0, maxSize: cap, cap: .maxEpisodeSize) == BodyLimit(bytes: cap, limit: .cap(.maxEpisodeSize)))
    }

    /// A length is the server's or the feed's word: one near Int64's end (Content-Length
    /// 5000000000000000000, `length="9223372036854775807"`) meets the cap; its margin overflowed
    /// and ended the process.
    @Test func aLengthNearInt64sEndMeetsTheCap() {
        for length in [Int64.max / 2 + 1, 5_000_000_000_000_000_000, .max] {
            #expect(BodyLimit.margin(over: length) == .max)
            #expect(BodyLimit.forBody(serverLength: length, feedLength: nil, maxSize: cap, cap: .maxEpisodeSize) == BodyLimit(bytes: cap, limit: .cap(.maxEpisodeSize)))
            #expect(BodyLimit.forBody(serverLength: nil, feedLength: length, maxSize: cap, cap: .maxEpisodeSize) == BodyLimit(bytes: cap, limit: .cap(.maxEpisodeSize)))
            #expect(Transfer.receiveBuffer(forLength: length) == 256 * 1024)
        }
        #expect(BodyLimit.margin(over: Int64.max / 2) == .max - 1)
    }

    @Test func theCapIsNeverPassed() {
        let limit = BodyLimit.forBody(serverLength: 10 * Self.mebibyte, feedLength: nil, maxSize: Self.mebibyte, cap: .maxEpisodeSize)
        #expect(limit == BodyLimit(bytes: Self.mebibyte, limit: .cap(.maxEpisodeSize)))
        #expect(limit.reason(url: "http://h/a.mp3").contains("max-episode-size"))
    }

    @Test func aCompanionIsToldItsOwnFixedLimitRatherThanToRaiseMaxSize() {
        let limit = BodyLimit.forBody(serverLength: 100 * Self.mebibyte, feedLength: nil, maxSize: CompanionFile.maxBytes, cap: .companionFile)
        #expect(limit == BodyLimit(bytes: 64 * Self.mebibyte, limit: .cap(.companionFile)))
        let reason = limit.reason(url: "http://h/a.png")
        #expect(reason == "the file from http://h/a.png is larger than 64.0 MiB, the fixed limit of companion files "
            + "(transcripts, chapters, artwork); nothing was kept")
        #expect(!reason.contains("max-size") && !reason.contains("max-episode-size"))
    }

    @Test func theReasonSaysWhichLengthWasPassed() {
        #expect(BodyLimit(bytes: 1, limit: .feedLength(1_000)).reason(url: "u").contains("far more than the 1.0 KiB the feed announced"))
        #expect(BodyLimit(bytes: 1, limit: .serverLength(2_000_000)).reason(url: "u").contains("far more than the 1.9 MiB it announced"))
    }
}
