import CCurl
import CFileSystem
import Glibc
import PodcastHTTP
import PodcastPlatform

/// One running download: its easy handle and its partial file. Lives on the engine thread,
/// which keeps it alive for as long as its handle is in the multi handle.
///
/// A resumed transfer asks for the rest with `Range` and `If-Range`; what the answer means for the
/// partial file (append, take whole, complete, start over) is `ResponseCheck`'s verdict, taken on
/// the first body bytes (or at the end, for an answer without a body). Every piece written is
/// held to a `BodyLimit`, so no body fills the disk; an answer larger than the request's
/// `goAheadAbove` waits, its first piece held by libcurl, until the caller has checked the room
/// for it and calls `goAhead` (or cancels it), and an answer of no known size waits so after
/// each `filledPiece` it writes.
final class Transfer {
    let request: TransferRequest
    let easy: CurlEasy
    /// The partial file, open for writing; -1 until a body arrives for a conditional request
    /// (`acceptsNotModified`), which then creates it: a 304 leaves no file behind.
    private var descriptor: Int32 = -1
    private let outbox: EngineOutbox
    /// The partial file's size: where the next byte goes.
    private(set) var written: Int64
    /// Bytes received in this attempt.
    private(set) var received: Int64 = 0
    /// Where the bytes not yet announced with `.filled` begin.
    private var unannounced: Int64
    /// The whole file's length, once the response said.
    private var total: Int64?
    /// How large the file may grow; known once the response's headers are read.
    private var limit: BodyLimit
    /// Why the write callback stopped the transfer, if it did.
    private(set) var refusal: FailedTransfer.Kind?
    /// What the current hop's answer is, as far as its body has shown.
    private var hop = Hop.unchecked
    /// True while its accepted answer waits for `goAhead` (`TransferRequest.goAheadAbove`): its
    /// write callback paused it at the first piece, or, for an answer of no known size, at the
    /// piece after each `filledPiece` written.
    private var awaitsGoAhead = false
    /// True when the accepted answer gave no size (chunked) and the request waits for
    /// go-aheads: it then waits after each `filledPiece`, for the room it takes as it grows. A
    /// compressed answer never waits so: libcurl keeps what it decodes while a transfer is
    /// paused, and a body that decodes to megabytes from a few kilobytes ends its transfer with
    /// CURLE_OUT_OF_MEMORY; its room is checked as it grows without it waiting.
    private var growsUnchecked = false
    /// The run's speed cap, when there is one.
    private let limiter: RateLimiter?
    /// While the transfer waits for the speed cap (its write callback paused it): the cap's turn
    /// number when it began (`RateLimiter.nextTurn`), so the one that waited longest goes on first.
    var rateTurn: Int?
    private var speed: SpeedMeter
    /// When the transfer was started: its `timeLimit` and `firstByteTimeout` count from here.
    private let startedAt = ContinuousClock.now

    /// What a hop's answer is, once its first body bytes (or its end) showed it.
    private enum Hop {
        /// Not checked yet: no body byte has arrived.
        case unchecked
        /// A redirect, whose body (a note for browsers) is dropped.
        case redirect(RedirectNote)
        /// Checked (`ResponseCheck`): its body is the file's.
        case file
        /// Checked: its body is never part of the file (a 416's error page, a 304's mistake).
        case discarded

        /// True once the answer was checked.
        var isChecked: Bool {
            switch self {
            case .file, .discarded: true
            case .unchecked, .redirect: false
            }
        }
    }

    /// The host `request` names, counted while the transfer runs (`TransferRequest.host`).
    var host: String { request.host }

    /// True while the transfer waits for the speed cap.
    var waitsForRate: Bool { rateTurn != nil }

    /// The largest piece libcurl hands over at once: 16 KiB halves throughput; 256 and 512 KiB
    /// were equally fast (design notes), and 256 KiB keeps 16 transfers under the memory target.
    private static let receiveBuffer = 256 * 1024

    /// A feed's receive buffer: feeds are kilobytes to a few megabytes, fetched dozens at once;
    /// 256 KiB each would cost 12 MiB at 48 feeds, for no speed a feed needs.
    private static let feedReceiveBuffer = 64 * 1024

    /// Received bytes are announced (`.filled`) in pieces this large, so they can be handed to
    /// the disk's writeback while the network reads, and an answer of no known size is held to
    /// the room on its disk as it grows.
    static let filledPiece: Int64 = 4 * 1024 * 1024

    /// Room in the receive buffer for the response's headers, which arrive in the same reads as
    /// the body: a buffer exactly the file's size left its last bytes for a second `recv` (and a
    /// second trip through `poll`) on every small file.
    private static let headerAllowance = 4 * 1024

    /// The receive buffer for a file of about `length` bytes: no bigger than the whole response
    /// (the file and its headers, rounded up to 16 KiB, libcurl's default), so many small files in
    /// flight do not cost 256 KiB each. Lengths under 4 KiB are the placeholders feeds use (0, 1,
    /// 1024) and are not believed; a length past the largest buffer (up to Int64's end, as a
    /// hostile feed may write) gets the largest.
    static func receiveBuffer(forLength length: Int64?) -> Int {
        guard let length, length >= 4096 else { return receiveBuffer }
        let response = Int(min(length, Int64(receiveBuffer))) + headerAllowance
        let rounded = (response + 16 * 1024 - 1) / (16 * 1024) * (16 * 1024)
        return min(receiveBuffer, rounded)
    }

    /// Opens the partial file (truncated to the resume offset, or to nothing) and prepares the
    /// handle; fails only locally.
    init(
        request: TransferRequest, settings: HTTPSettings, limiter: RateLimiter? = nil, jar: CookieJar? = nil, outbox: EngineOutbox
    ) throws(FailedTransfer) {
        self.request = request
        self.outbox = outbox
        self.limiter = limiter
        limit = BodyLimit.forBody(serverLength: nil, feedLength: request.expectedLength, maxSize: request.maxSize, cap: request.sizeCap)
        let offset = request.resume?.offset ?? 0
        if !request.acceptsNotModified {
            descriptor = try Self.openPartial(request, truncatingTo: offset)
        }
        written = offset
        unannounced = offset
        let conditions = (request.resume?.validator.map { ["If-Range: \($0)"] } ?? []) + request.headers
        // Media is asked for unencoded, so ranges and lengths mean bytes of the file; a server
        // that compresses anyway is still decoded, so the bytes on disk are the media.
        guard let easy = CurlEasy(url: request.url, settings: settings, requestHeaders: conditions, acceptEncoding: "identity", jar: jar) else {
            if descriptor >= 0 { close(descriptor) }
            throw FailedTransfer(id: request.id, kind: .http(.unsupportedURL(request.url)), url: request.url)
        }
        self.easy = easy
        speed = SpeedMeter(bytes: offset, at: .now)
        easy.set(CURLOPT_BUFFERSIZE, request.lane == .feed ? Self.feedReceiveBuffer : Self.receiveBuffer(forLength: request.expectedLength))
        if let resume = request.resume {
            easy.set(CURLOPT_RANGE, "\(resume.offset)-")
        }
        if let limit = request.timeLimit { easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(limit)) }

    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Opens `request`'s partial file, cut to `offset` bytes.
    private static func openPartial(_ request: TransferRequest, truncatingTo offset: Int64) throws(FailedTransfer) -> Int32 {
        let descriptor = FileIO.calls.open(request.partialPath, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            throw FailedTransfer(id: request.id, kind: .local(.last("open", path: request.partialPath)), url: request.url)
        }
        // Bytes past the offset were never checked against the server: they go. A file already
        // that long is left alone: on ext4, truncating a file to nothing makes its close flush
        // everything written since (auto_da_alloc), on the engine thread.
        guard size(of: descriptor) == offset || ftruncate(descriptor, off_t(offset)) == 0 else {
            let error = SystemError.last("ftruncate", path: request.partialPath)
            close(descriptor)
            throw FailedTransfer(id: request.id, kind: .local(error), url: request.url)
        }
        return descriptor
    }

    /// Creates the partial file of a conditional request, once its answer turns out to have a
    /// body worth keeping; the reason it could not be, if it could not.
    private func createPartialIfNeeded() -> FailedTransfer.Kind? {
        guard descriptor < 0 else { return nil }
        do {
            descriptor = try Self.openPartial(request, truncatingTo: 0)
            return nil
        } catch {
            return error.kind
        }
    }

    /// True when the server has had the request's `firstByteTimeout` and not begun to answer
    /// (no status line yet, on the first hop: a redirect's target is held to the time limit).
    func isSilent(at now: ContinuousClock.Instant) -> Bool {
        guard let wait = request.firstByteTimeout, now - startedAt >= wait else { return false }
        guard case .unchecked = hop else { return false }
        return easy.redirectCount == 0 && easy.responseCode == 0
    }

    /// The time limit's rest, for the next hop of a redirect (at least 1 ms: 0 means no limit).
    private func remainingTime() -> Duration? {
        request.timeLimit.map { max(.milliseconds(1), $0 - (ContinuousClock.now - startedAt)) }
    }

    /// `duration` in whole milliseconds for libcurl, at least 1: to libcurl, 0 means no limit.
    private static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000))
    }

    /// The size of the open file, or nil when it cannot be told.
    private static func size(of descriptor: Int32) -> Int64? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : nil
    }

    /// Hands libcurl the write callback with this transfer as its context.
    func attachCallbacks() {
        easy.setWriteFunction(Self.write, userdata: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Hands the bytes not yet announced (`.filled`) to the disk's writeback, without waiting:
    /// for a finished file, so its `fdatasync` before the rename finds them written or on the way
    /// (a small file's are all of it). A hint: a failure changes nothing.
    func startWritebackOfRest() {
        guard request.writesBack, descriptor >= 0, written > unannounced else { return }
        _ = podcast_start_writeback(descriptor, unannounced, written - unannounced)
        unannounced = written
    }

    /// Updates the speed from the bytes written since the last sample.
    func sampleSpeed(now: ContinuousClock.Instant) {
        speed.sample(bytes: written, at: now)
    }

    /// Where the transfer stands.
    var progress: TransferProgress {
        TransferProgress(id: request.id, bytes: written, total: total, speed: speed.bytesPerSecond, answered: hop.isChecked, throttled: waitsForRate)
    }

    /// Lets the transfer waiting at its answer write its body: libcurl hands the piece it holds
    /// to the write callback within the unpause.
    func goAhead() {
        guard awaitsGoAhead else { return }
        awaitsGoAhead = false
        _ = podcast_curl_easy_unpause(easy.handle)
    }

    /// After the hop ended with libcurl's result `code`: true when its answer was a redirect that
    /// `RedirectRule` lets it follow, and the handle now points at the target (take it out of
    /// the multi handle and add it again); false when the hop's answer is the transfer's end
    /// (a refused redirect is its `refusal`).
    func followRedirect(after code: CURLcode) -> Bool {
        let result: CURLcode
        switch hop {
        case .redirect(let note): result = note.hopResult(code)
        case .unchecked: result = code
        case .file, .discarded: return false
        }
        guard result == CURLE_OK else { return false }
        switch easy.followRedirect() {
        case .none:
            return false
        case .refused(let error):
            refusal = .http(error)
            return false
        case .follow:
            hop = .unchecked
            if let rest = remainingTime() { easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(rest)) }
            return true
        }
    }

    /// The event for the transfer's end with libcurl's result `code`.
    func outcome(_ code: CURLcode, settings: HTTPSettings) -> TransferEvent {
        let url = easy.url
        func failed(_ kind: FailedTransfer.Kind) -> TransferEvent {
            .failed(FailedTransfer(id: request.id, kind: kind, url: url, bytes: written, received: received))
        }
        if let refusal { return failed(refusal) }
        guard code == CURLE_OK else {
            // libcurl's timers fire to the millisecond, a little before ours may say the time is up;
            // its other timeouts (connect, stall) end a transfer far from its time limit.
            if code == CURLE_OPERATION_TIMEDOUT, let limit = request.timeLimit, ContinuousClock.now - startedAt >= limit - .milliseconds(250) {
                return failed(.overTime(limit))
            }
            return failed(.http(.curl(code, url: url, curlMessage: easy.errorMessage, settings: settings)))
        }
        if case .unchecked = hop {
            // No body arrived (a 416's may be empty): the verdict is taken on the headers now.
            switch ResponseCheck.verdict(on: answer, resuming: request.resume, emptyBody: true) {
            case .complete: return completed(url: url)
            case .startOver(let why): return failed(.startOver(why))
            case .append(let whole): total = whole
            case .failure, .takeWhole: break
            }
        }
        let status = easy.responseCode
        if status == 416, request.resume != nil, case .discarded = hop { return completed(url: url) }
        if status == 304, request.acceptsNotModified { return completed(url: url) }
        guard (200...299).contains(status) else {
            return failed(.http(.status(status, url: url, retryAfter: easy.retryAfter)))
        }
        // A body-less answer still leaves its (empty) file, as every completed transfer does.
        if let problem = createPartialIfNeeded() { return failed(problem) }
        // An empty answer is no episode, whatever its status says.
        if request.expectsMedia && written == 0 {
            return failed(.lengthMismatch(received: 0, announced: easy.contentLength ?? 0))
        }
        // With an encoding the announced length counts encoded bytes; libcurl checks that itself.
        if !answer.isEncoded, let total, total != written {
            return failed(.lengthMismatch(received: written, announced: total))
        }
        return completed(url: url)
    }

    private func completed(url: String) -> TransferEvent {
        .completed(CompletedTransfer(
            id: request.id, bytes: written, received: received, effectiveURL: url, contentType: easy.contentType,
            etag: easy.header("etag"), lastModified: easy.header("last-modified"), status: easy.responseCode,
            permanentTarget: easy.permanentTarget))
    }

    /// libcurl's body callback, on the engine thread: the first piece decides whether the response
    /// is the file (status, range, HTML check); every piece is written with `pwrite` at its offset.
    /// Returning short makes libcurl stop with CURLE_WRITE_ERROR and `refusal` says why.
    private static let write: podcast_curl_data_callback = { data, size, count, userdata in
        guard let data, let userdata else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        if case .unchecked = transfer.hop, transfer.easy.answerIsRedirect {
            transfer.hop = .redirect(RedirectNote())
        }
        switch transfer.hop {
        case .redirect(var note):
            let taken = note.drop(length)
            transfer.hop = .redirect(note)
            return taken
        case .unchecked:
            transfer.hop = .file
            transfer.easy.traceAnswer()
            if let refusal = transfer.acceptResponse(startingWith: UnsafeRawBufferPointer(start: data, count: length)) {
                transfer.refusal = refusal
                return 0
            }
            if case .discarded = transfer.hop { return length }
            // libcurl keeps this piece and hands it over again once the transfer goes ahead.
            if transfer.awaitsGoAhead { return podcast_curl_writefunc_pause }
        case .discarded:
            return length
        case .file:
            // libcurl keeps this piece and hands it over again once the transfer goes ahead.
            if transfer.awaitsGoAhead { return podcast_curl_writefunc_pause }
        }
        if let limiter = transfer.limiter {
            guard limiter.allows() else {
                transfer.rateTurn = limiter.nextTurn()
                return podcast_curl_writefunc_pause
            }
            limiter.take(length)
        }
        if let problem = transfer.createPartialIfNeeded() {
            transfer.refusal = problem
            return 0
        }
        if transfer.written + Int64(length) > transfer.limit.bytes {
            transfer.refusal = .tooLarge(transfer.limit.reason(url: transfer.easy.url))
            return 0
        }
        var offset = 0
        while offset < length {
            let result = FileIO.calls.pwrite(transfer.descriptor, data + offset, length - offset, off_t(transfer.written) + off_t(offset))
            if result < 0 {
                if errno == EINTR { continue }
                transfer.refusal = .local(.last("pwrite", path: transfer.request.partialPath))
                return 0
            }
            offset += result
        }
        transfer.written += Int64(length)
        transfer.received += Int64(length)
        if transfer.written - transfer.unannounced >= filledPiece {
            transfer.unannounced = transfer.written
            // Set before the batch hears of it: its go-ahead can only come after.
            if transfer.growsUnchecked { transfer.awaitsGoAhead = true }
            transfer.outbox.post(.filled(id: transfer.request.id, bytes: transfer.written))
        }
        return length
    }

    /// The parts of the response `ResponseCheck` reads.
    private var answer: ResponseCheck.Answer {
        ResponseCheck.Answer(
            status: easy.responseCode, contentRange: easy.header("content-range"), etag: easy.header("etag"),
            lastModified: easy.header("last-modified"), contentEncoding: easy.header("content-encoding"),
            contentLength: easy.contentLength)
    }

    /// Decides, on the first body bytes, whether the response is what was asked for: nil when it
    /// is (and the partial file is made ready for it), else why not.
    private func acceptResponse(startingWith bytes: UnsafeRawBufferPointer) -> FailedTransfer.Kind? {
        let answer = answer
        let url = easy.url
        if answer.status == 304, request.acceptsNotModified {
            // A body on a 304 is a server's mistake: nothing of it is the document.
            hop = .discarded
            return nil
        }
        let verdict = ResponseCheck.verdict(on: answer, resuming: request.resume)
        if case .failure = verdict {
            return .http(.status(answer.status, url: url, retryAfter: easy.retryAfter))
        }
        // A web page where a feed was asked for is known by its first bytes (a feed may be served
        // as text/html): the rest of it is not worth fetching.
        if request.lane == .feed, !request.readsPage, (200...299).contains(answer.status), Self.looksLikeHTML(bytes) { return .htmlInsteadOfMedia }
        if request.expectsMedia, answer.status != 416 {
            let type = easy.contentType?.lowercased() ?? ""
            if type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") || Self.looksLikeHTML(bytes) {
                return .htmlInsteadOfMedia
            }
        }
        var startedOver: String?
        switch verdict {
        case .failure:
            return nil
        case .complete:
            // A 416's body is an error page, never part of the file.
            hop = .discarded
            return nil
        case .startOver(let why):
            return .startOver(why)
        case .append(let whole):
            total = whole
        case .takeWhole(let whole, let why):
            if request.resume != nil {
                startedOver = why
                guard ftruncate(descriptor, 0) == 0 else { return .local(.last("ftruncate", path: request.partialPath)) }
                written = 0
                unannounced = 0
            }
            total = whole
        }
        // A compressed body's length counts compressed bytes: only a limit far past it applies.
        let serverLength = answer.isEncoded ? answer.contentLength : total
        limit = BodyLimit.forBody(serverLength: serverLength, feedLength: request.expectedLength, maxSize: request.maxSize, cap: request.sizeCap)
        if let total, total > limit.bytes { return .tooLarge(limit.reason(url: url)) }
        if let total, let unasked = request.goAheadAbove { awaitsGoAhead = total - written > unasked }
        growsUnchecked = total == nil && request.goAheadAbove != nil && !answer.isEncoded
        outbox.post(.responded(TransferResponse(
            id: request.id, offset: written, total: total, effectiveURL: url, etag: answer.etag,
            lastModified: answer.lastModified, encoded: answer.isEncoded, startedOver: startedOver, awaitsGoAhead: awaitsGoAhead)))
        return nil
    }

    /// True when the bytes start (after white space) like an HTML document.
    static func looksLikeHTML(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.prefix(14)
        let lowered = start.map { $0 | 0x20 }
        return lowered.starts(with: Array("<!doctype html".utf8)) || lowered.starts(with: Array("<html".utf8))
    }
}

/// A transfer's speed, in bytes per second, smoothed over the last few seconds' samples.
struct SpeedMeter {
    private var last: (bytes: Int64, time: ContinuousClock.Instant)
    private(set) var bytesPerSecond: Double = 0

    /// A meter whose first sample is `bytes` (where the transfer begins) at `time`.
    init(bytes: Int64, at time: ContinuousClock.Instant) {
        last = (bytes, time)
    }

    /// The transfer holds `bytes` at `time`: samples less than 0.2 s apart are not taken.
    mutating func sample(bytes: Int64, at time: ContinuousClock.Instant) {
        let elapsed = time - last.time
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        guard seconds >= 0.2 else { return }
        let current = Double(bytes - last.bytes) / seconds
        bytesPerSecond = bytesPerSecond == 0 ? current : bytesPerSecond * 0.7 + current * 0.3
        last = (bytes, time)
    }
}
