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

    /// Creates a request.
    public init(id: Int, url: String, partialPath: String, expectsMedia: Bool = true) {
        self.id = id
        self.url = url
        self.partialPath = partialPath
        self.expectsMedia = expectsMedia
    }
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
}

/// A transfer that ended with the whole body on disk, checked against what the server said.
public struct CompletedTransfer: Sendable, Equatable {
    /// The request's id.
    public var id: Int
    /// Bytes written.
    public var bytes: Int64
    /// The URL that answered, after redirects.
    public var effectiveURL: String
    /// The response's Content-Type.
    public var contentType: String?
    /// The response's ETag.
    public var etag: String?
    /// The response's Last-Modified.
    public var lastModified: String?
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
    }

    /// The request's id.
    public var id: Int
    /// What went wrong.
    public var kind: Kind
    /// The URL it was about.
    public var url: String

    /// One line for the user: what failed and what to do.
    public var reason: String {
        switch kind {
        case .http(let error): return error.description
        case .htmlInsteadOfMedia:
            return "the server sent a web page instead of the episode for \(url); the link may need a login or "
                + "have expired: check it in a browser"
        case .lengthMismatch(0, _):
            return "the server sent an empty file for \(url); try again later, or tell the publisher"
        case .lengthMismatch(let received, let announced):
            return "received \(received) bytes of the \(announced) the server announced for \(url); try again"
        case .local(let error):
            return "\(error); free some space or check the Episodes directory's permissions"
        case .cancelled:
            return "cancelled"
        }
    }
}

/// What the engine reports, on its own thread.
public enum TransferEvent: Sendable, Equatable {
    /// A transfer left the queue and began (its request's id).
    case started(Int)
    /// Where every running transfer stands; at most four times a second.
    case progress([TransferProgress])
    /// A transfer ended well.
    case completed(CompletedTransfer)
    /// A transfer ended badly.
    case failed(FailedTransfer)
}
