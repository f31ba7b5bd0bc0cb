import PodcastPlatform

/// Runs a long document's `InputRepair` on a thread of its own while the caller's thread parses
/// what was repaired before: on a multilingual feed, validating UTF-8 and rewriting references
/// is a fifth of the work of reading it, and the two passes then run side by side on two cores.
///
/// Pieces are gathered into blocks (one hand-over per block, not per piece) and sent by value; at
/// most `blocksInFlight` blocks are on their way at once, so memory stays bounded. Each piece
/// comes back repaired as a piece of its own, handed to `parse` in order: the caller can stop
/// between pieces exactly where it would have without the thread. Not Sendable: one thread adds
/// pieces and finishes.
final class RepairThread {
    /// Pieces of the document, one after another, and where each ends.
    private struct Block: Sendable {
        var bytes: [UInt8] = []
        var ends: [Int] = []
        /// True for the document's last block: what is held back is let go after its pieces.
        var isFinal = false
    }

    private let raw = BatchQueue<Block>(slots: blocksInFlight)
    private let repaired = BatchQueue<Block>(slots: blocksInFlight)
    private var thread: BackgroundThread<Void, Never>?
    private var gathering = Block()
    /// Blocks sent and not yet taken back repaired.
    private var inFlight = 0

    /// How many bytes are gathered before a block is sent: few hand-overs, little memory. The
    /// thread is mostly waiting for the next block, and waking it costs the parsing thread
    /// (`sem_post`): at 64 KiB that was 3% of the parse of a 17 MB feed, at 256 KiB a quarter of it.
    static let blockSize = 256 * 1024
    /// The most blocks on their way at once (1.5 MiB). With the episodes' thread beside it on the
    /// other core, this thread is not always running when a block arrives: more blocks repaired
    /// ahead let the parse go on meanwhile.
    static let blocksInFlight = 6

    /// Starts the thread with `repair`, in whatever state it is (bytes it holds back included);
    /// nil when no thread can be started.
    init?(_ repair: InputRepair) {
        let raw = raw
        let repaired = repaired
        thread = BackgroundThread { Self.run(repair, from: raw, to: repaired) }
        guard thread != nil else { return nil }
    }

    deinit {
        // A document abandoned before its end: the thread is told to stop, the blocks on their
        // way are taken back (a queue must not go with batches in it), and the thread waited for.
        raw.close()
        while thread != nil && inFlight > 0 {
            _ = repaired.receive()
            inFlight -= 1
        }
        thread?.wait()
    }

    /// Takes the next piece of the document; hands `parse` the pieces of earlier blocks, repaired.
    func add(_ piece: UnsafeRawBufferPointer, parse: (UnsafeRawBufferPointer) -> Void) {
        guard thread != nil else { return }
        gathering.bytes.append(contentsOf: piece)
        gathering.ends.append(gathering.bytes.count)
        guard gathering.bytes.count >= Self.blockSize else { return }
        send()
        // Later blocks are repaired while the earliest is parsed.
        if inFlight == Self.blocksInFlight { parseNextBlock(parse) }
    }

    /// Hands `parse` every piece added so far, repaired; with `final`, the end of the document
    /// (bytes held back are let go) and of the thread, after which pieces are ignored.
    func flush(final: Bool, parse: (UnsafeRawBufferPointer) -> Void) {
        guard thread != nil else { return }
        gathering.isFinal = final
        send()
        while inFlight > 0 { parseNextBlock(parse) }
        if final {
            raw.close()
            thread?.wait()
            thread = nil
        }
    }

    private func send() {
        let block = gathering
        gathering = Block()
        gathering.bytes.reserveCapacity(Self.blockSize)
        raw.send(block)
        inFlight += 1
    }

    private func parseNextBlock(_ parse: (UnsafeRawBufferPointer) -> Void) {
        guard let block = repaired.receive() else { preconditionFailure("RepairThread: a block was lost") }
        inFlight -= 1
        block.bytes.withUnsafeBytes { bytes in
            var start = 0
            for end in block.ends {
                parse(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                start = end
            }
        }
    }

    /// The thread: repairs each block's pieces one by one, as `FeedParser` would have, until the
    /// queue is closed.
    private static func run(_ repair: InputRepair, from raw: BatchQueue<Block>, to repaired: BatchQueue<Block>) {
        var repair = repair
        while let block = raw.receive() {
            var output = Block()
            output.bytes.reserveCapacity(block.bytes.count + block.bytes.count / 8)
            output.ends.reserveCapacity(block.ends.count + 1)
            block.bytes.withUnsafeBytes { bytes in
                var start = 0
                for end in block.ends {
                    repair.process(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), final: false) {
                        output.bytes.append(contentsOf: $0)
                    }
                    output.ends.append(output.bytes.count)
                    start = end
                }
            }
            if block.isFinal {
                // What was held back, as a piece of its own: `FeedParser.finish` without the thread.
                repair.process(UnsafeRawBufferPointer(start: nil, count: 0), final: true) { output.bytes.append(contentsOf: $0) }
                output.ends.append(output.bytes.count)
            }
            repaired.send(output)
        }
    }
}
