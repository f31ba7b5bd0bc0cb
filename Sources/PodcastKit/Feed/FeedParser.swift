import CLibXML2

/// Reads a feed from its bytes as they arrive (from the network or a file), with libxml2's SAX2
/// push parser: no whole-document buffer, so memory stays flat whatever the feed's size. The
/// builder works out what libxml2 reads as it reads it, on the calling thread.
///
/// Not Sendable: one thread calls `parse` for each piece and then `finish`.
public final class FeedParser {
    /// A feed that was read, and what the user should know about how it was read.
    public struct Result: Sendable {
        /// The feed, its episodes newest first, each identity once.
        public var feed: Feed
        /// Problems that did not stop the feed being read (sloppy XML, cut texts), one line each.
        public var warnings: [String]
    }

    private let source: String
    private let httpCharset: String?
    private var builder: FeedBuilder
    private var start: [UInt8] = []
    private var state = State.sniffing
    /// The repairs the bytes get before libxml2 reads them; nil when the encoding allows none.
    private var repair: InputRepair?
    private var skippedLines = 0

    private enum State {
        case sniffing
        case parsing(XMLPushParser)
        case rejected(FeedError.Kind)
        case stopped(XMLPushParser)
    }

    /// How many bytes are looked at before deciding what the document is.
    private static let sniffLength = 1024
    /// The most bytes of a document read: real feeds are a few MB; this stops an endless stream.
    public static let maxBytes = 256 * 1024 * 1024

    /// The bytes taken so far, at most `maxBytes`.
    private var received = 0
    /// True once the document went past `maxBytes`: what follows was not read.
    private var cutAtLimit = false

    /// A parser for the document at `url` (relative links resolve against it), named `source` in
    /// errors; `httpCharset` is the charset the server named, if any.
    public init(url: String, source: String? = nil, httpCharset: String? = nil) {
        self.source = source ?? url
        self.httpCharset = httpCharset
        builder = FeedBuilder(url: url)
    }

    /// False once more bytes cannot change the outcome (the document is not a feed, or the item
    /// or byte limit was reached): the caller may stop reading.
    public var wantsMoreBytes: Bool {
        switch state {
        case .sniffing, .parsing: !cutAtLimit
        case .rejected, .stopped: false
        }
    }

    /// Parses the next bytes of the document (up to `maxBytes` in all; the document is read no
    /// further than that).
    public func parse(_ bytes: UnsafeRawBufferPointer) {
        guard !cutAtLimit else { return }
        if bytes.count > Self.maxBytes - received {
            // The part that fits is read; then reading stops as if the builder had asked for it,
            // so the cut is not taken for broken XML.
            parse(UnsafeRawBufferPointer(rebasing: bytes[..<(Self.maxBytes - received)]))
            cutAtLimit = true
            if case .parsing(let xml) = state {
                xml.stop()
                state = .stopped(xml)
            }
            return
        }
        received += bytes.count
        stopIfRequested()
        switch state {
        case .sniffing:
            start.append(contentsOf: bytes)
            if start.count >= Self.sniffLength { beginParsing() }
        case .parsing(let xml):
            feed(bytes, to: xml)
        case .rejected, .stopped:
            break
        }
    }

    /// Ends the document and returns the feed, or why there is none.
    public func finish() throws(FeedError) -> Result {
        if case .sniffing = state { beginParsing() }
        let xml: XMLPushParser
        switch state {
        case .sniffing: throw FeedError(.empty, source: source)
        case .rejected(let kind): throw FeedError(kind, source: source)
        case .parsing(let parser), .stopped(let parser): xml = parser
        }
        stopIfRequested()
        if case .parsing = state {
            feed(UnsafeRawBufferPointer(start: nil, count: 0), to: xml, final: true)
            xml.finish(into: &builder)
        }
        if let root = builder.findings.rejectedRoot {
            throw FeedError(root.lowercased() == "html" ? .html : .notAFeed(root: root), source: source)
        }
        let problem = xml.firstProblem.map { XMLProblem(line: $0.line + skippedLines, column: $0.column, message: $0.message) }
        guard builder.findings.format != nil else {
            throw FeedError(problem.map { .malformed(line: $0.line, column: $0.column, message: $0.message) } ?? .notXML, source: source)
        }
        var feed = builder.result()
        if feed.episodes.isEmpty, let problem {
            throw FeedError(.malformed(line: problem.line, column: problem.column, message: problem.message), source: source)
        }
        if feed.episodes.isEmpty, cutAtLimit { throw FeedError(.tooLarge(limit: Self.maxBytes), source: source) }
        var warnings: [String] = []
        if cutAtLimit {
            warnings.append("feed \(source) is larger than \(Self.maxBytes / 1024 / 1024) MiB; listing the "
                + "\(feed.episodes.count) episodes in its first \(Self.maxBytes / 1024 / 1024) MiB")
        }
        if let problem {
            warnings.append("feed \(source) has broken XML at line \(problem.line):\(problem.column) (\(problem.message)); "
                + "listing the \(feed.episodes.count) episodes read")
        }
        if xml.ignoredEntityDeclarations > 0 {
            warnings.append("feed \(source) declares \(xml.ignoredEntityDeclarations) XML entities; they were ignored for safety")
        }
        if builder.findings.truncatedTexts > 0 {
            warnings.append("feed \(source): \(builder.findings.truncatedTexts) texts longer than \(FeedBuilder.maxTextBytes / 1024) KiB were cut")
        }
        if builder.findings.itemLimitReached {
            warnings.append("feed \(source) has more than \(FeedBuilder.maxItems) items; only the first \(FeedBuilder.maxItems) were read")
        }
        let duplicates = Self.orderNewestFirst(&feed.episodes)
        if duplicates > 0 {
            warnings.append("feed \(source) lists \(duplicates) episodes twice (same identity); each is shown once")
        }
        return Result(feed: feed, warnings: warnings)
    }

    private func beginParsing() {
        switch FeedSniffer.judge(start, httpCharset: httpCharset) {
        case .empty:
            state = start.isEmpty ? .sniffing : .rejected(.empty)
        case .notXML(let kind):
            state = .rejected(kind)
        case .xml(let skip, let lines, let encoding):
            skippedLines = lines
            let override: String?
            var repairsUTF8 = false
            switch encoding {
            case .utf8:
                repairsUTF8 = true
                override = "UTF-8"
            case .decodedByLibXML(let name):
                if let name, !Self.libxmlKnowsEncoding(name) {
                    // A charset libxml2 does not know ("utf8mb4", "binary"): read it as UTF-8.
                    repairsUTF8 = true
                    override = "UTF-8"
                } else {
                    override = name
                }
            }
            // Encodings in which the byte of `&` can be part of another character are left alone.
            let unsafe = override.map { ["UTF-16", "UTF-32", "UCS-", "ISO-2022", "UTF-7", "HZ"].contains(where: $0.uppercased().hasPrefix) } ?? false
            repair = unsafe ? nil : InputRepair(utf8: repairsUTF8)
            guard let xml = XMLPushParser(documentURL: source, encoding: override) else {
                state = .rejected(.notXML)
                return
            }
            state = .parsing(xml)
            let body = Array(start.dropFirst(skip))
            start = []
            body.withUnsafeBytes { feed($0, to: xml) }
        }
    }

    /// Whether libxml2 can decode the charset `name`. The handler it finds for the asking is
    /// closed again: one backed by iconv is allocated for each lookup (and leaked otherwise).
    private static func libxmlKnowsEncoding(_ name: String) -> Bool {
        guard let handler = xmlFindCharEncodingHandler(name) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }

    /// Stops parsing once the builder asked for it (the document is not a feed, or the item
    /// limit was reached).
    private func stopIfRequested() {
        guard case .parsing(let xml) = state, builder.findings.stopped else { return }
        xml.stop()
        state = .stopped(xml)
    }

    /// Hands bytes to libxml2 through the repairs the encoding allows; with `final`, the last of them.
    private func feed(_ bytes: UnsafeRawBufferPointer, to xml: XMLPushParser, final: Bool = false) {
        guard var repair else {
            xml.parse(bytes, into: &builder)
            return
        }
        // Taken out while it works, so that it is not copied on write.
        self.repair = nil
        repair.process(bytes, final: final) { xml.parse($0, into: &builder) }
        self.repair = repair
    }

    /// Sorts episodes newest first (undated ones after, in feed order) and drops later copies of
    /// an identity; returns how many were dropped.
    static func orderNewestFirst(_ episodes: inout [Episode]) -> Int {
        // Indices are sorted, not episodes, and only the dates and identities are read: a long feed
        // is then copied at most once.
        let dates = episodes.map(\.published)
        let order = episodes.indices.sorted { lhs, rhs in
            switch (dates[lhs], dates[rhs]) {
            case let (left?, right?) where left != right: return left > right
            case (.some, nil): return true
            case (nil, .some): return false
            default: return lhs < rhs
            }
        }
        let identities = episodes.map(\.identity)
        var seen = Set<String>(minimumCapacity: episodes.count)
        let kept = order.filter { seen.insert(identities[$0]).inserted }
        let dropped = episodes.count - kept.count
        // Most feeds already list each episode once, newest first: nothing to move then.
        if dropped == 0 && kept.elementsEqual(episodes.indices) { return 0 }
        episodes = kept.map { episodes[$0] }
        return dropped
    }
}
