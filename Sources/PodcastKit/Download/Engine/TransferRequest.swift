import PodcastHTTP
import PodcastPlatform

/// One file to fetch into a partial file.
public struct TransferRequest: Sendable, Equatable {
    /// The caller's key for this transfer, echoed in every event about it.
    public var id: Int
    /// Where to fetch it from.
    public var url: String
    /// The partial file to write (created or truncated).
    public var partialPath: String
    /// True for media: an HTML page in its place (a login wall, a CDN error page) is refused.
    public var expectsMedia: Bool
    /// Where to continue the partial file; nil to fetch from the start (the file is truncated).
    public var resume: ResumePoint?
    /// Not before this instant (a back-off or a server's Retry-After); nil for as soon as a slot is free.
    public var notBefore: ContinuousClock.Instant?
    /// The size the feed announces, if any: a small file gets a small receive buffer.
    public var expectedLength: Int64?
    /// False when the partial file is on a file system in memory: there is no disk to hand its
    /// last bytes to (the writeback hint at the end).
    public var writesBack: Bool
    /// The most bytes the file may hold (`max-episode-size`); a body past it is stopped.
    public var maxSize: Int64
    /// Which limit `maxSize` is, for the line that tells a body ran past it.
    var sizeCap = BodyLimit.Cap.maxEpisodeSize
    /// Headers of this request's own (a feed's `If-None-Match`), sent on every hop.
    public var headers: [String] = []
    /// True when a `304 Not Modified` is an answer (a conditional feed fetch): the transfer then
    /// completes with status 304 and no file (the partial file is only created once a body
    /// arrives, so an unchanged feed costs no file).
    public var acceptsNotModified = false
    /// Which of the engine's queues the request waits in: feeds have slots of their own, so a
    /// round of feeds is not held up by long downloads, nor downloads by feeds.
    public var lane = TransferLane.episode
    /// True for a web page fetched on the feed lane to be read for the feeds it names
    /// (`FeedPage`): HTML is what was asked for, not a page in a feed's place.
    var readsPage = false
    /// The most the whole transfer may take (a feed's deadline); nil for no limit (an episode
    /// over a slow line may take hours; its stalls are what ends it).
    public var timeLimit: Duration?
    /// The most the server may take to start answering (to send its status line); nil for no
    /// limit beyond the connect timeout and the stall timeout.
    public var firstByteTimeout: Duration?
    /// An answer bringing more than this many bytes (its size less what the partial file holds)
    /// waits, its body unwritten, for the caller to check it against the room on the disk and
    /// call `TransferEngine.goAhead` (or `cancel`): the answer tells (`TransferResponse.awaitsGoAhead`).
    /// An answer of no known size waits so after each `.filled` it announces.
    /// Nil: no answer waits. A feed can leave an episode's length out, or write 0 or 1, so the
    /// server's is the first size worth checking (`FreeSpaceCheck`).
    public var goAheadAbove: Int64?
    /// HTTP settings of this request's own, in place of the engine's (a feed's: without the
    /// download headers); nil for the engine's.
    public var http: HTTPSettings?

    /// The host (and port) the request names, lower-cased, without credentials: whose
    /// connections it takes.
    var host: String { Self.host(of: url) }

    /// The host (and port) of `url`, lower-cased, without credentials: where connections go.
    static func host(of url: String) -> String {
        URLParts(url).map { String($0.host) } ?? url
    }

    /// The default `max-episode-size`: 16 GiB, past any podcast episode, short of filling a disk.
    public static let defaultMaxSize: Int64 = 16 * 1024 * 1024 * 1024

    /// Creates a request.
    public init(
        id: Int, url: String, partialPath: String, expectsMedia: Bool = true, resume: ResumePoint? = nil,
        notBefore: ContinuousClock.Instant? = nil, expectedLength: Int64? = nil, writesBack: Bool = true,
        maxSize: Int64 = defaultMaxSize
    ) {
        self.id = id
        self.url = url
        self.partialPath = partialPath
        self.expectsMedia = expectsMedia
        self.resume = resume
        self.notBefore = notBefore
        self.expectedLength = expectedLength
        self.writesBack = writesBack
        self.maxSize = maxSize
    }
}

/// The engine's queues: each has its own number of slots, and both share the connections
/// (at most `connectionsPerHost` to one host, whatever the lane).
public enum TransferLane: Sendable, Equatable {
    /// Episodes and their companions: `concurrency` at once.
    case episode
    /// Feeds: `feedConcurrency` at once.
    case feed

    /// Both, feeds first: the engine starts feeds before episodes when both may start.
    static let all: [TransferLane] = [.feed, .episode]
}

/// What a server answered, once per attempt, when the first bytes of the body are accepted.
public struct TransferResponse: Sendable, Equatable {
    /// The request's id.
    public var id: Int
    /// The partial file's size before this response's bytes: the resume offset, or 0.
    public var offset: Int64
    /// The whole file's length, when the server said.
    public var total: Int64?
    /// The URL that answered, after redirects.
    public var effectiveURL: String
    /// The response's ETag.
    public var etag: String?
    /// The response's Last-Modified.
    public var lastModified: String?
    /// True when the body is content-encoded (gzip and the like) although the identity was asked
    /// for: libcurl decodes it, so such a transfer cannot be continued with a range.
    public var encoded: Bool
    /// Why a resumed transfer is taking the whole file again (the partial was truncated), if it is.
    public var startedOver: String?
    /// True when the transfer waits, no byte of its body written, for `TransferEngine.goAhead`
    /// (its answer brings more than the request's `goAheadAbove`).
    public var awaitsGoAhead = false
}

/// How far one running transfer has got.
public struct TransferProgress: Sendable, Equatable {
    /// The request's id.
    public var id: Int
    /// Bytes written so far.
    public var bytes: Int64
    /// The whole size, when the server said.
    public var total: Int64?
    /// Bytes per second over the last seconds.
    public var speed: Double
    /// Whether the server's answer was accepted: from then on the transfer is receiving, even
    /// while the speed cap holds back its first bytes.
    public var answered = false
    /// Whether the transfer waits for the run's speed cap right now (not for the server).
    public var throttled = false
}

/// A transfer that ended with the whole body on disk, checked against what the server said.
public struct CompletedTransfer: Sendable, Equatable {
    /// The request's id.
    public var id: Int
    /// The file's size: bytes written.
    public var bytes: Int64
    /// Bytes received in this attempt (fewer than `bytes` when it resumed).
    public var received: Int64
    /// The URL that answered, after redirects.
    public var effectiveURL: String
    /// The response's Content-Type.
    public var contentType: String?
    /// The response's ETag.
    public var etag: String?
    /// The response's Last-Modified.
    public var lastModified: String?
    /// The status of the answer: 200 or 206, or 304 for a request that accepts it.
    public var status: Int = 200
    /// Where the redirects the transfer followed moved it for good (`CurlEasy.permanentTarget`).
    public var permanentTarget: String?
}

/// A transfer that did not deliver the file.
public struct FailedTransfer: Error, Sendable, Equatable {
    /// What went wrong, for the retry policy and for exit codes.
    public enum Kind: Sendable, Equatable {
        /// The network or the server failed (status, timeout, connection).
        case http(HTTPError)
        /// The server sent an HTML page where media was expected.
        case htmlInsteadOfMedia
        /// Fewer (or more) bytes arrived than the server announced.
        case lengthMismatch(received: Int64, announced: Int64)
        /// Writing the partial file failed.
        case local(SystemError)
        /// The transfer was cancelled.
        case cancelled
        /// The partial file cannot be continued (the server's answer to the range request does
        /// not fit it): fetch the whole file again. The reason is for the user.
        case startOver(String)
        /// The body ran past its `BodyLimit`; the reason says which, for the user.
        case tooLarge(String)
        /// The server did not begin to answer within the request's `firstByteTimeout`.
        case noAnswer(Duration)
        /// The transfer was not done within the request's `timeLimit`.
        case overTime(Duration)
    }

    /// True when the host never answered: it could not be found or reached, or it took the
    /// connection and said nothing. A host that fails so again and again is down for now.
    public var hostDidNotAnswer: Bool {
        switch kind {
        case .noAnswer: return true
        case .overTime: return received == 0
        case .http(let error):
            switch error.kind {
            case .hostNotFound, .cannotConnect: return true
            case .timedOut, .connectionLost: return received == 0
            default: return false
            }
        default: return false
        }
    }

    /// The request's id.
    public var id: Int
    /// What went wrong.
    public var kind: Kind
    /// The URL it was about.
    public var url: String
    /// The partial file's size when it ended.
    public var bytes: Int64 = 0
    /// Bytes received in this attempt: more than zero means the attempt made progress.
    public var received: Int64 = 0

    /// What a server that fails this way again and again keeps doing, for the line that gives up.
    public var pattern: String {
        switch kind {
        case .http(let error):
            switch error.kind {
            case .connectionLost: return "closing the connection before the end of the file"
            case .timedOut: return "stalling (too slow for too long)"
            case .status(let code): return "answering \(code)"
            case .hostNotFound, .cannotConnect, .proxy, .tls: return "being unreachable"
            default: return "sending a broken answer"
            }
        case .lengthMismatch: return "sending fewer bytes than it announces"
        case .startOver: return "sending answers that cannot continue the partial file"
        default: return "failing"
        }
    }

    /// What failed, without what to do about it: for a line that says when podcast tries again
    /// itself ("try again in 1 s" would contradict "retrying in 2 s"), and for the line that gives up.
    public var retryReason: String {
        switch kind {
        case .http(let error): return "\(error.detail) for \(error.url)"
        case .lengthMismatch(0, _): return "the server sent an empty file for \(url)"
        case .lengthMismatch(let received, let announced): return "received \(received) bytes of the \(announced) the server announced for \(url)"
        case .noAnswer(let wait): return "no answer from \(url) within \(Self.words(wait))"
        case .overTime(let limit): return "\(url) took longer than \(Self.words(limit)) and was stopped"
        default: return reason
        }
    }

    /// One line for the user: what failed and what to do.
    public var reason: String {
        switch kind {
        case .http(let error): return error.description
        case .htmlInsteadOfMedia:
            return "the server sent a web page instead of the episode for \(url); the link may need a login or "
                + "have expired: check it in a browser"
        case .lengthMismatch(0, _):
            return retryReason + "; try again later, or tell the publisher"
        case .lengthMismatch:
            return retryReason + "; try again"
        case .local(let error):
            return "\(error); free some space or check the Episodes directory's permissions"
        case .cancelled:
            return "cancelled"
        case .startOver(let why):
            return "started over: \(why)"
        case .tooLarge(let why):
            return why
        case .noAnswer:
            return retryReason + "; the server may be down: try again later"
        case .overTime:
            return retryReason + "; the server is too slow: try again later"
        }
    }

    /// The line for an episode given up after `attempts` in a row that gained nothing, `spent`
    /// after its first failure: what the server keeps doing and its last failure, without that
    /// failure's own advice (a Retry-After's "try again in 2 s" is wrong once the retries are
    /// spent), and what to do now.
    public func givingUp(attempts: Int, spent: Duration) -> String {
        let over = spent >= .seconds(1) ? " over \(Self.words(spent))" : ""
        return "gave up after \(attempts) attempt\(attempts == 1 ? "" : "s") in a row that gained nothing\(over): "
            + "the server keeps \(pattern) (last: \(retryReason)); run podcast resume later to try again"
    }

    /// `500 ms`, `30 s`, `2 min`, `1 min 30 s`.
    static func words(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds == 0 { return "\(duration.components.attoseconds / 1_000_000_000_000_000) ms" }
        guard seconds >= 60 else { return "\(seconds) s" }
        return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds / 60) min \(seconds % 60) s"
    }
}

/// What the engine reports, on its own thread.
public enum TransferEvent: Sendable, Equatable {
    /// The request the event is about; nil for a progress snapshot, which is about every running one.
    public var requestID: Int? {
        switch self {
        case .started(let id), .filled(let id, _): id
        case .responded(let response): response.id
        case .completed(let done): done.id
        case .failed(let failure): failure.id
        case .progress: nil
        }
    }

    /// A transfer left the queue and began (its request's id).
    case started(Int)
    /// The server's answer was accepted and its body is being written.
    case responded(TransferResponse)
    /// Where every running transfer stands; at most four times a second.
    case progress([TransferProgress])
    /// A transfer's partial file holds `bytes` bytes, another `Transfer.filledPiece` or more
    /// since it last said so: for the digest, the disk's writeback, and the room an answer of
    /// no known size takes as it grows (`EpisodeDownload.grew`), which waits for the go-ahead
    /// then when its request has `goAheadAbove`.
    case filled(id: Int, bytes: Int64)
    /// A transfer ended well.
    case completed(CompletedTransfer)
    /// A transfer ended badly.
    case failed(FailedTransfer)
}
