import CCurl
import Glibc
import PodcastHTTP
import PodcastPlatform

/// The engine thread's loop: take commands, start what the limits allow, let libcurl work,
/// collect finished transfers, publish progress, sleep in `curl_multi_poll` until there is work.
final class EngineLoop {
    private let settings: TransferEngine.Settings
    private let mailbox: EngineMailbox
    private let outbox: EngineOutbox
    private let multi: UnsafeMutableRawPointer
    /// Requests not yet started, by lane.
    private var waiting: [TransferLane: RequestQueue] = [.episode: RequestQueue(), .feed: RequestQueue()]
    /// Transfers running, by lane.
    private var runningIn: [TransferLane: Int] = [.episode: 0, .feed: 0]
    /// Transfers running, by the host their request names (`TransferRequest.host`).
    private var runningTo: [String: Int] = [:]
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
        _ = podcast_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(8, settings.concurrency + settings.feedConcurrency))
        defer {
            mailbox.attach(nil)
            curl_multi_cleanup(multi)
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
            _ = curl_multi_perform(multi, &stillRunning)
            var finished = collectFinished(multi: multi)
            if endSilentTransfers(multi: multi) { finished = true }
            resumeTransfersWaitingForRate()
            publishProgressIfDue()
            outbox.flush()
            // A freed slot with work waiting: start the next transfer now, not after a poll timeout.
            if finished && canStartWaiting { continue }
            _ = curl_multi_poll(multi, nil, 0, pollTimeoutMilliseconds(), nil)
        }
    }

    /// Ends the transfers whose server has not begun to answer within their `firstByteTimeout`;
    /// true when there was one. Looked at every turn of the loop, so within 250 ms of the limit.
    private func endSilentTransfers(multi: UnsafeMutableRawPointer) -> Bool {
        let now = ContinuousClock.now
        let silent = running.filter { $0.value.isSilent(at: now) }
        for (handle, transfer) in silent {
            finish(handle, multi: multi, event: .failed(FailedTransfer(
                id: transfer.request.id, kind: .noAnswer(transfer.request.firstByteTimeout ?? .zero), url: transfer.request.url)))
        }
        return !silent.isEmpty
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

    /// Lets the transfers paused by the speed cap go on while it allows bytes, the one that has
    /// waited longest first: each takes its piece through the write callback (libcurl hands the
    /// held piece over within the unpause), which pauses it again, with a later turn, once the
    /// bucket runs dry. In the order of the running table instead, the same transfer came first
    /// every time and took the whole cap while the others received nothing.
    private func resumeTransfersWaitingForRate() {
        guard let limiter else { return }
        let waiting = running.values.compactMap { transfer in transfer.rateTurn.map { (turn: $0, transfer) } }.sorted { $0.turn < $1.turn }
        for (_, transfer) in waiting {
            guard limiter.allows() else { return }
            transfer.rateTurn = nil
            _ = podcast_curl_easy_unpause(transfer.easy.handle)
        }
    }

    /// Moves delayed requests whose time has come to the front of the queue: a retry goes before
    /// episodes that have not started yet.
    private func releaseDueRetries() {
        let now = ContinuousClock.now
        let due = delayed.prefix { ($0.notBefore ?? now) <= now }
        guard !due.isEmpty else { return }
        for request in due.reversed() { waiting[request.lane, default: RequestQueue()].pushFront(request) }
        delayed.removeFirst(due.count)
    }

    private func handle(_ command: EngineCommand, multi: UnsafeMutableRawPointer) {
        switch command {
        case .start(let request):
            if let notBefore = request.notBefore, notBefore > .now {
                let index = delayed.firstIndex { ($0.notBefore ?? notBefore) > notBefore } ?? delayed.endIndex
                delayed.insert(request, at: index)
            } else {
                waiting[request.lane, default: RequestQueue()].append(request)
            }
        case .cancel(let id):
            if let request = waiting[.episode]?.remove(id: id) ?? waiting[.feed]?.remove(id: id) {
                outbox.post(.failed(FailedTransfer(id: id, kind: .cancelled, url: request.url)))
            } else if let index = delayed.firstIndex(where: { $0.id == id }) {
                let request = delayed.remove(at: index)
                outbox.post(.failed(FailedTransfer(id: id, kind: .cancelled, url: request.url)))
            } else if let handle = running.first(where: { $0.value.request.id == id })?.key {
                finish(handle, multi: multi, event: cancelled(running[handle]))
            }
        case .goAhead(let id):
            running.values.first { $0.request.id == id }?.goAhead()
        }
    }

    /// True when a request waits that a free slot (and, for a feed, its host) would take now.
    private var canStartWaiting: Bool {
        TransferLane.all.contains { lane in
            runningIn[lane, default: 0] < slots(of: lane) && waiting[lane]?.contains(where: { mayStart($0, in: lane) }) == true
        }
    }

    /// Whether `host` has a connection free for a feed. A feed waits here, not in libcurl's
    /// queue, while its host's connections are busy (with downloads too): its first-byte timeout
    /// and time limit count from when it is really asked. Episodes are left to libcurl's limit,
    /// which counts the host they are fetched from after redirects (a redirector such as a
    /// tracking prefix would otherwise hold every episode to two at a time).
    private func mayStart(_ waiting: RequestQueue.Waiting, in lane: TransferLane) -> Bool {
        lane == .episode || runningTo[waiting.host, default: 0] < settings.connectionsPerHost
    }

    /// How many transfers of `lane` run at once.
    private func slots(of lane: TransferLane) -> Int {
        lane == .feed ? settings.feedConcurrency : settings.concurrency
    }

    private func startWaiting(multi: UnsafeMutableRawPointer) {
        for lane in TransferLane.all {
            while runningIn[lane, default: 0] < slots(of: lane), let next = waiting[lane]?.popFirst(where: { mayStart($0, in: lane) }) {
                let request = next.request
                do {
                    let transfer = try Transfer(
                        request: request, settings: request.http ?? settings.http, limiter: limiter, jar: jar, outbox: outbox)
                    transfer.attachCallbacks()
                    guard curl_multi_add_handle(multi, transfer.easy.handle) == CURLM_OK else {
                        outbox.post(.failed(FailedTransfer(id: request.id, kind: .local(SystemError(call: "curl_multi_add_handle", code: ENOMEM)), url: request.url)))
                        continue
                    }
                    running[transfer.easy.handle] = transfer
                    runningIn[lane, default: 0] += 1
                    runningTo[next.host, default: 0] += 1
                    outbox.post(.started(request.id))
                } catch {
                    outbox.post(.failed(error))
                }
            }
        }
    }

    /// Ends every transfer libcurl reports done; true when there was one.
    private func collectFinished(multi: UnsafeMutableRawPointer) -> Bool {
        var queued: Int32 = 0
        var any = false
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = running[handle]
            else { continue }
            let code = message.pointee.data.result
            if transfer.followRedirect(after: code) {
                // The same handle, pointed at the redirect's target, goes round again.
                _ = curl_multi_remove_handle(multi, handle)
                if curl_multi_add_handle(multi, handle) == CURLM_OK { continue }
                finish(handle, multi: multi, event: .failed(FailedTransfer(
                    id: transfer.request.id, kind: .local(SystemError(call: "curl_multi_add_handle", code: ENOMEM)),
                    url: transfer.request.url)))
                any = true
                continue
            }
            let event = transfer.outcome(code, settings: transfer.request.http ?? settings.http)
            if case .completed = event { transfer.startWritebackOfRest() }
            finish(handle, multi: multi, event: event)
            any = true
        }
        return any
    }

    /// Takes the handle out of the multi handle, frees the transfer, then reports `event`.
    private func finish(_ handle: UnsafeMutableRawPointer, multi: UnsafeMutableRawPointer, event: TransferEvent) {
        _ = curl_multi_remove_handle(multi, handle)
        if let transfer = running.removeValue(forKey: handle) {
            runningIn[transfer.request.lane, default: 1] -= 1
            runningTo[transfer.host, default: 1] -= 1
        }
        outbox.post(event)
    }

    private func cancelled(_ transfer: Transfer?) -> TransferEvent {
        .failed(FailedTransfer(
            id: transfer?.request.id ?? -1, kind: .cancelled, url: transfer?.request.url ?? "",
            bytes: transfer?.written ?? 0, received: transfer?.received ?? 0))
    }

    private func failAllWaiting(reason: FailedTransfer.Kind) {
        for lane in TransferLane.all {
            while let request = waiting[lane]?.popFirst(where: { _ in true })?.request {
                outbox.post(.failed(FailedTransfer(id: request.id, kind: reason, url: request.url, bytes: request.resume?.offset ?? 0)))
            }
        }
        for request in delayed {
            outbox.post(.failed(FailedTransfer(id: request.id, kind: reason, url: request.url, bytes: request.resume?.offset ?? 0)))
        }
        delayed.removeAll()
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

/// Requests waiting for a slot, oldest first, each with its host: taken from `next` on (an
/// index, not removeFirst: a queue of thousands must not cost a copy per start).
struct RequestQueue {
    /// A waiting request and the host it names.
    struct Waiting {
        var request: TransferRequest
        var host: String
    }

    private var entries: [Waiting] = []
    private var next = 0

    mutating func append(_ request: TransferRequest) {
        entries.append(Waiting(request: request, host: request.host))
    }

    /// Puts `request` first (a retry whose back-off is over goes before what has not started).
    mutating func pushFront(_ request: TransferRequest) {
        entries.insert(Waiting(request: request, host: request.host), at: next)
    }

    /// True when a waiting request satisfies `startable`.
    func contains(where startable: (Waiting) -> Bool) -> Bool {
        entries[next...].contains(where: startable)
    }

    /// The oldest request that satisfies `startable`, taken out; nil when none does.
    mutating func popFirst(where startable: (Waiting) -> Bool) -> Waiting? {
        guard let index = entries[next...].firstIndex(where: startable) else { return nil }
        let taken = entries[index]
        if index == next {
            next += 1
        } else {
            entries.remove(at: index)
        }
        if next == entries.count {
            entries.removeAll(keepingCapacity: true)
            next = 0
        }
        return taken
    }

    /// Takes out the request `id`, if it waits.
    mutating func remove(id: Int) -> TransferRequest? {
        guard let index = entries[next...].firstIndex(where: { $0.request.id == id }) else { return nil }
        return entries.remove(at: index).request
    }
}
