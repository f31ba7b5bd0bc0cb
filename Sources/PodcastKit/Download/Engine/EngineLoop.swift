import CCurl
import Glibc

/// The engine thread's loop: take commands, start what the limits allow, let libcurl work,
/// collect finished transfers, publish progress, sleep in `curl_multi_poll` until there is work.
final class EngineLoop {
    private let settings: TransferEngine.Settings
    private let mailbox: EngineMailbox
    private let outbox: EngineOutbox
    private let multi: UnsafeMutableRawPointer
    /// Requests not yet started, oldest first, from `nextWaiting` on (an index, not removeFirst:
    /// a queue of thousands must not cost a copy per start).
    private var waiting: [TransferRequest] = []
    private var nextWaiting = 0
    /// Requests that must wait until their `notBefore` (retries after a back-off), soonest first.
    private var delayed: [TransferRequest] = []
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]
    private var lastProgress = ContinuousClock.now
    /// The run's speed cap, shared by every transfer, when there is one.
    private let limiter: RateLimiter?
    /// The run's cookies, shared by every transfer, unless cookies are off. Every transfer has
    /// ended, and freed its handle, before the loop does.
    private let jar: CookieJar?

    /// Progress goes out at most this often.
    private static let progressInterval = Duration.milliseconds(250)

    init(
        settings: TransferEngine.Settings, mailbox: EngineMailbox, multi: UnsafeMutableRawPointer, outbox: EngineOutbox
    ) {
        self.settings = settings
        self.mailbox = mailbox
        self.multi = multi
        self.outbox = outbox
        limiter = settings.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        jar = settings.http.cookies ? CookieJar() : nil
    }

    /// Runs until the mailbox is closed; every transfer has ended with an event by then.
    func run() {
        _ = podcast_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, settings.connectionsPerHost)
        _ = podcast_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(8, settings.concurrency))
        defer {
            mailbox.attach(nil)
            podcast_curl_multi_cleanup(multi)
        }

        while true {
            let (commands, closed) = mailbox.take()
            for command in commands {
                handle(command, multi: multi)
            }
            if closed {
                for handle in Array(running.keys) {
                    finish(handle, multi: multi, event: cancelled(running[handle]))
                }
                failAllWaiting(reason: .cancelled)
                outbox.flush()
                return
            }
            releaseDueRetries()
            startWaiting(multi: multi)
            var stillRunning: Int32 = 0
            _ = podcast_curl_multi_perform(multi, &stillRunning)
            let finished = collectFinished(multi: multi)
            resumeTransfersWaitingForRate()
            publishProgressIfDue()
            outbox.flush()
            // A freed slot with work waiting: start the next transfer now, not after a poll timeout.
            if finished && hasWaiting && running.count < settings.concurrency { continue }
            _ = podcast_curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(), nil)
        }
    }

    /// Up to 250 ms, less when a delayed request comes due sooner or the speed cap lets a
    /// waiting transfer go on sooner.
    private func pollTimeoutMilliseconds() -> Int32 {
        var wait = Duration.milliseconds(250)
        if let soonest = delayed.first?.notBefore { wait = min(wait, soonest - ContinuousClock.now) }
        if let limiter, running.values.contains(where: \.waitsForRate) {
            wait = min(wait, max(.milliseconds(1), limiter.wait()))
        }
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }

    /// Lets the transfers paused by the speed cap go on once it allows bytes again; each takes
    /// its turn through the write callback, which pauses it again if the bucket runs dry.
    private func resumeTransfersWaitingForRate() {
        guard let limiter, limiter.allows() else { return }
        for transfer in running.values where transfer.waitsForRate {
            transfer.waitsForRate = false
            _ = podcast_curl_easy_unpause(transfer.easy.handle)
        }
    }

    /// Moves delayed requests whose time has come to the front of the queue: a retry goes before
    /// episodes that have not started yet.
    private func releaseDueRetries() {
        let now = ContinuousClock.now
        let due = delayed.prefix { ($0.notBefore ?? now) <= now }
        guard !due.isEmpty else { return }
        waiting.replaceSubrange(nextWaiting..<nextWaiting, with: due)
        delayed.removeFirst(due.count)
    }

    private func handle(_ command: EngineCommand, multi: UnsafeMutableRawPointer) {
        switch command {
        case .start(let request):
            if let notBefore = request.notBefore, notBefore > .now {
                let index = delayed.firstIndex { ($0.notBefore ?? notBefore) > notBefore } ?? delayed.endIndex
                delayed.insert(request, at: index)
            } else {
                waiting.append(request)
            }
        case .cancel(let id):
            if let index = waiting[nextWaiting...].firstIndex(where: { $0.id == id }) {
                let request = waiting.remove(at: index)
                outbox.post(.failed(FailedTransfer(id: id, kind: .cancelled, url: request.url)))
            } else if let index = delayed.firstIndex(where: { $0.id == id }) {
                let request = delayed.remove(at: index)
                outbox.post(.failed(FailedTransfer(id: id, kind: .cancelled, url: request.url)))
            } else if let handle = running.first(where: { $0.value.request.id == id })?.key {
                finish(handle, multi: multi, event: cancelled(running[handle]))
            }
        }
    }

    private var hasWaiting: Bool { nextWaiting < waiting.count }

    private func startWaiting(multi: UnsafeMutableRawPointer) {
        while running.count < settings.concurrency, hasWaiting {
            let request = waiting[nextWaiting]
            nextWaiting += 1
            do {
                let transfer = try Transfer(request: request, settings: settings.http, limiter: limiter, jar: jar, outbox: outbox)
                transfer.attachCallbacks()
                guard podcast_curl_multi_add_handle(multi, transfer.easy.handle) == CURLM_OK else {
                    outbox.post(.failed(FailedTransfer(id: request.id, kind: .local(SystemError(call: "curl_multi_add_handle", code: ENOMEM)), url: request.url)))
                    continue
                }
                running[transfer.easy.handle] = transfer
                outbox.post(.started(request.id))
            } catch {
                outbox.post(.failed(error))
            }
        }
        if !hasWaiting {
            waiting.removeAll(keepingCapacity: true)
            nextWaiting = 0
        }
    }

    /// Ends every transfer libcurl reports done; true when there was one.
    private func collectFinished(multi: UnsafeMutableRawPointer) -> Bool {
        var queued: Int32 = 0
        var any = false
        while let message = podcast_curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = running[handle]
            else { continue }
            let code = message.pointee.data.result
            if transfer.followRedirect(after: code) {
                // The same handle, pointed at the redirect's target, goes round again.
                _ = podcast_curl_multi_remove_handle(multi, handle)
                if podcast_curl_multi_add_handle(multi, handle) == CURLM_OK { continue }
                finish(handle, multi: multi, event: .failed(FailedTransfer(
                    id: transfer.request.id, kind: .local(SystemError(call: "curl_multi_add_handle", code: ENOMEM)),
                    url: transfer.request.url)))
                any = true
                continue
            }
            let event = transfer.outcome(code, settings: settings.http)
            if case .completed = event { transfer.startWritebackOfRest() }
            finish(handle, multi: multi, event: event)
            any = true
        }
        return any
    }

    /// Takes the handle out of the multi handle, frees the transfer, then reports `event`.
    private func finish(_ handle: UnsafeMutableRawPointer, multi: UnsafeMutableRawPointer, event: TransferEvent) {
        _ = podcast_curl_multi_remove_handle(multi, handle)
        running[handle] = nil
        outbox.post(event)
    }

    private func cancelled(_ transfer: Transfer?) -> TransferEvent {
        .failed(FailedTransfer(
            id: transfer?.request.id ?? -1, kind: .cancelled, url: transfer?.request.url ?? "",
            bytes: transfer?.written ?? 0, received: transfer?.received ?? 0))
    }

    private func failAllWaiting(reason: FailedTransfer.Kind) {
        for request in waiting[nextWaiting...] + delayed {
            outbox.post(.failed(FailedTransfer(id: request.id, kind: reason, url: request.url, bytes: request.resume?.offset ?? 0)))
        }
        waiting.removeAll()
        delayed.removeAll()
        nextWaiting = 0
    }

    private func publishProgressIfDue() {
        let now = ContinuousClock.now
        guard now - lastProgress >= Self.progressInterval, !running.isEmpty else { return }
        lastProgress = now
        let snapshot = running.values.map { transfer in
            transfer.sampleSpeed(now: now)
            return transfer.progress
        }.sorted { $0.id < $1.id }
        outbox.post(.progress(snapshot))
    }
}
