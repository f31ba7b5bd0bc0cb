import CCurl
import Glibc

/// One running download: its easy handle and its partial file. Lives on the engine thread,
/// which keeps it alive for as long as its handle is in the multi handle.
final class Transfer {
    let request: TransferRequest
    let easy: CurlEasy
    private let descriptor: Int32
    /// Bytes written to the partial file.
    private(set) var written: Int64 = 0
    /// Why the write callback stopped the transfer, if it did.
    private(set) var refusal: FailedTransfer.Kind?
    private var checkedResponse = false
    private var sample: (bytes: Int64, time: ContinuousClock.Instant)
    /// Bytes per second, smoothed over the last few seconds.
    private(set) var speed: Double = 0

    /// The largest piece libcurl hands over at once: 16 KiB halves throughput; 256 and 512 KiB
    /// were equally fast (design notes), and 256 KiB keeps 16 transfers under the memory target.
    private static let receiveBuffer = 256 * 1024

    /// Opens (truncating) the partial file and prepares the handle; fails only locally.
    init(request: TransferRequest, settings: HTTPSettings) throws(FailedTransfer) {
        self.request = request
        descriptor = open(request.partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw FailedTransfer(id: request.id, kind: .local(.last("open", path: request.partialPath)), url: request.url)
        }
        // Media is asked for unencoded, so ranges and lengths mean bytes of the file; a server
        // that compresses anyway is still decoded, so the bytes on disk are the media.
        guard let easy = CurlEasy(url: request.url, settings: settings, acceptEncoding: "identity") else {
            close(descriptor)
            throw FailedTransfer(id: request.id, kind: .http(.unsupportedURL(request.url)), url: request.url)
        }
        self.easy = easy
        sample = (0, .now)
        easy.set(CURLOPT_BUFFERSIZE, Self.receiveBuffer)
    }

    deinit {
        close(descriptor)
    }

    /// Hands libcurl the write callback with this transfer as its context.
    func attachCallbacks() {
        easy.setWriteFunction(Self.write, userdata: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Updates `speed` from the bytes written since the last sample.
    func sampleSpeed(now: ContinuousClock.Instant) {
        let elapsed = now - sample.time
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        guard seconds >= 0.2 else { return }
        let current = Double(written - sample.bytes) / seconds
        speed = speed == 0 ? current : speed * 0.7 + current * 0.3
        sample = (written, now)
    }

    /// Where the transfer stands.
    var progress: TransferProgress {
        TransferProgress(id: request.id, bytes: written, total: easy.contentLength, speed: speed)
    }

    /// The event for the transfer's end with libcurl's result `code`.
    func outcome(_ code: CURLcode, settings: HTTPSettings) -> TransferEvent {
        let url = easy.effectiveURL ?? request.url
        func failed(_ kind: FailedTransfer.Kind) -> TransferEvent {
            .failed(FailedTransfer(id: request.id, kind: kind, url: url))
        }
        if let refusal { return failed(refusal) }
        guard code == CURLE_OK else {
            return failed(.http(.curl(code, url: url, curlMessage: easy.errorMessage, settings: settings)))
        }
        let status = easy.responseCode
        guard (200...299).contains(status) else {
            return failed(.http(.status(status, url: url, retryAfter: easy.retryAfter)))
        }
        // An empty answer is no episode, whatever its status says.
        if request.expectsMedia && written == 0 {
            return failed(.lengthMismatch(received: 0, announced: easy.contentLength ?? 0))
        }
        // With an encoding the announced length counts encoded bytes; libcurl checks that itself.
        if easy.header("content-encoding") == nil, let announced = easy.contentLength, announced != written {
            return failed(.lengthMismatch(received: written, announced: announced))
        }
        return .completed(CompletedTransfer(
            id: request.id, bytes: written, effectiveURL: url, contentType: easy.contentType,
            etag: easy.header("etag"), lastModified: easy.header("last-modified")))
    }

    /// libcurl's body callback, on the engine thread: the first piece decides whether the response
    /// is the file (status, HTML check); every piece is written with `pwrite` at its offset.
    /// Returning short makes libcurl stop with CURLE_WRITE_ERROR and `refusal` says why.
    private static let write: podcast_curl_data_callback = { data, size, count, userdata in
        guard let data, let userdata else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        if !transfer.checkedResponse {
            transfer.checkedResponse = true
            if let refusal = transfer.refusalOfResponse(startingWith: bytes) {
                transfer.refusal = refusal
                return 0
            }
        }
        var offset = 0
        while offset < length {
            let result = pwrite(transfer.descriptor, data + offset, length - offset, off_t(transfer.written) + off_t(offset))
            if result < 0 {
                if errno == EINTR { continue }
                transfer.refusal = .local(.last("pwrite", path: transfer.request.partialPath))
                return 0
            }
            offset += result
        }
        transfer.written += Int64(length)
        return length
    }

    /// Why the response starting with `bytes` is not the file asked for, or nil when it is.
    private func refusalOfResponse(startingWith bytes: UnsafeRawBufferPointer) -> FailedTransfer.Kind? {
        let status = easy.responseCode
        guard (200...299).contains(status) else {
            return .http(.status(status, url: easy.effectiveURL ?? request.url, retryAfter: easy.retryAfter))
        }
        guard request.expectsMedia else { return nil }
        let type = easy.contentType?.lowercased() ?? ""
        if type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") || Self.looksLikeHTML(bytes) {
            return .htmlInsteadOfMedia
        }
        return nil
    }

    /// True when the bytes start (after white space) like an HTML document.
    static func looksLikeHTML(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = bytes.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.prefix(14)
        let lowered = start.map { $0 | 0x20 }
        return lowered.starts(with: Array("<!doctype html".utf8)) || lowered.starts(with: Array("<html".utf8))
    }
}
