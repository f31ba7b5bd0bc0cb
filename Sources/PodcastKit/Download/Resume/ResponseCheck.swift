import PodcastText

/// Decides what a server's answer means for the partial file, from its status and headers alone:
/// append the rest, take the whole file again, call the file complete, or start over. Every
/// attempt of every download passes through here; the transfer only writes what this allows.
///
/// The point is that a download is always the server's current file and never a splice of two
/// versions: a 206 is appended only when it starts exactly at the partial file's end, has the
/// recorded length, and carries no validator that differs from the recorded one (a server that
/// honours `Range` but ignores `If-Range` answers a changed file with a 206 of the new bytes).
public enum ResponseCheck {
    /// The parts of a response the decision reads.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var contentRange: String?
        public var etag: String?
        public var lastModified: String?
        public var contentEncoding: String?
        public var contentLength: Int64?

        /// Creates an answer.
        public init(
            status: Int, contentRange: String? = nil, etag: String? = nil, lastModified: String? = nil,
            contentEncoding: String? = nil, contentLength: Int64? = nil
        ) {
            self.status = status
            self.contentRange = contentRange
            self.etag = etag
            self.lastModified = lastModified
            self.contentEncoding = contentEncoding
            self.contentLength = contentLength
        }

        /// True when the body is content-encoded (gzip and the like) although the identity was
        /// asked for: libcurl decodes it, so lengths and ranges count bytes that are not the file's.
        var isEncoded: Bool {
            contentEncoding.map { $0.trimmingWhitespace().lowercased() != "identity" && !$0.isEmpty } ?? false
        }
    }

    /// What to do with the body.
    public enum Verdict: Sendable, Equatable {
        /// Append the body at the resume offset; `total` is the whole file's length.
        case append(total: Int64)
        /// Truncate the partial file and take the body as the whole file (`total` when known).
        /// `startedOver` says why a resumed attempt lost its partial data, for the user.
        case takeWhole(total: Int64?, startedOver: String?)
        /// A 416 that proves the partial file already is the whole file: nothing to append.
        case complete
        /// The body cannot continue the partial file: fetch the whole file again, for this reason.
        case startOver(String)
        /// Not a success: the body is the server's error page, never part of the file.
        case failure
    }

    /// The verdict on `answer` to a request that continued `resume` (nil: asked for the whole
    /// file); `emptyBody` when the transfer ended without a byte of body.
    public static func verdict(on answer: Answer, resuming resume: ResumePoint?, emptyBody: Bool = false) -> Verdict {
        switch answer.status {
        case 416 where resume != nil:
            return rangeNotSatisfiable(answer, resume: resume!)
        case 206:
            return partial(answer, resume: resume)
        case 200...299 where emptyBody && resume != nil:
            // Taking it whole would truncate the partial file to nothing.
            return .startOver("the server answered the range request with an empty file")
        case 200...299:
            let total = answer.isEncoded ? nil : answer.contentLength
            return .takeWhole(total: total, startedOver: resume.map { whyWhole(answer, resume: $0) })
        default:
            return .failure
        }
    }

    /// A 206: appended only when it continues exactly this partial file of this file.
    private static func partial(_ answer: Answer, resume: ResumePoint?) -> Verdict {
        guard let resume else { return .startOver("the server sent part of the file when the whole was asked for") }
        // Ranges of an encoded body count encoded bytes; the partial file holds decoded ones.
        if answer.isEncoded { return .startOver("the server compresses the file, so it cannot be continued") }
        if let changed = change(answer, resume: resume) { return .startOver(changed) }
        guard let range = ContentRange(answer.contentRange), let first = range.first else {
            return .startOver("the server's partial answer has no usable Content-Range")
        }
        guard first == resume.offset else {
            return .startOver("the server sent bytes from \(first) when \(resume.offset) was asked for")
        }
        guard let total = range.total, resume.total == nil || total == resume.total else {
            return .startOver("the server's file is now \(range.total.map(String.init) ?? "of unknown length") bytes, not \(resume.total ?? 0)")
        }
        return .append(total: total)
    }

    /// A 416 to a range request: the file is complete only when the server's whole length equals
    /// both the partial file and the length recorded with it (curl and wget take every 416 as done).
    private static func rangeNotSatisfiable(_ answer: Answer, resume: ResumePoint) -> Verdict {
        guard let range = ContentRange(answer.contentRange), range.first == nil, let serverTotal = range.total else {
            return .startOver("the server refused the range request without saying the file's length")
        }
        guard serverTotal == resume.offset, resume.total == serverTotal else {
            return .startOver("the server's file is \(serverTotal) bytes, the partial one \(resume.offset)")
        }
        if let changed = change(answer, resume: resume) { return .startOver(changed) }
        return .complete
    }

    /// Why a resumed attempt got the whole file (a 200): the file changed, or ranges are not served.
    private static func whyWhole(_ answer: Answer, resume: ResumePoint) -> String {
        change(answer, resume: resume) ?? "the server does not resume downloads (it ignored the range request)"
    }

    /// How the answer's validators show the server's file is not the one the partial data came
    /// from, or nil when they do not. ETags are compared when both sides have one (an equal ETag
    /// settles it, whatever Last-Modified says); else Last-Modified, when both have one.
    static func change(_ answer: Answer, resume: ResumePoint) -> String? {
        if let recorded = resume.etag, let current = answer.etag {
            return recorded == current ? nil : "the file on the server changed since the partial download (its ETag was \(recorded), now \(current))"
        }
        if let recorded = resume.lastModified, let current = answer.lastModified, recorded != current {
            return "the file on the server changed since the partial download (modified \(current), the partial data is from \(recorded))"
        }
        return nil
    }
}
