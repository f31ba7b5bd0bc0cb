import CLibXML2
import PodcastText

/// Reads the `<outline>` elements of an OPML file with libxml2's SAX2 parser: only start
/// tags are looked at, and only outlines that carry an `xmlUrl` are kept, as written. What they
/// mean (titles, resolving, duplicates) is `OPMLReader`'s business.
///
/// Its own small reader rather than the feed parser's: OPML wants none of the feed parser's
/// leniency (recovering from broken XML, undeclared HTML entities, repairing mislabelled
/// encodings): a subscription list is read whole or refused, at its first fatal XML error.
///
/// Hardening: no network (`NONET`), no DTD loaded, entities never substituted, and the parse stops
/// at the first entity declaration (billion-laughs, quadratic blowup, XXE), which is refused.
/// Not Sendable: made, used and released by one call of `entries(in:source:)`.
final class OPMLParser {
    /// An outline that names a feed, with its attributes as the file gives them (references decoded).
    struct Entry: Equatable {
        /// `xmlUrl` (in any capitalisation), as written.
        var feedURL: String
        var title: String?
        var text: String?
        var htmlURL: String?
    }

    private let context: xmlParserCtxtPtr
    private var entries: [Entry] = []
    private var sawRoot = false
    /// The first reason the file cannot be read; parsing stops when it is set.
    private var failure: OPMLError.Kind?

    /// The feed-carrying outlines of the OPML document `bytes`, in document order; `source`
    /// names the file in errors.
    static func entries(in bytes: [UInt8], source: String) throws(OPMLError) -> [Entry] {
        try bytes.withUnsafeBufferPointer { (buffer) throws(OPMLError) in
            // libxml2 makes no parser for an empty buffer; it would call the document empty too.
            guard let start = buffer.baseAddress, let parser = OPMLParser(document: start, count: buffer.count) else {
                throw OPMLError(.malformed(line: 1, column: 1, message: "Document is empty"), source: source)
            }
            xmlParseDocument(parser.context)
            if let failure = parser.failure { throw OPMLError(failure, source: source) }
            return parser.entries
        }
    }

    /// A parser over `count` bytes at `document`, which must stay valid while it parses.
    ///
    /// libxml2's pull parser over memory rather than its push parser: the file is in memory
    /// anyway, and the push parser reports every cut-off document as "Extra content at the end
    /// of the document" where this one says which tag was left open.
    private init?(document: UnsafePointer<UInt8>, count: Int) {
        podcast_xml_silence_generic_errors()
        guard let context = xmlCreateMemoryParserCtxt(UnsafeRawPointer(document).assumingMemoryBound(to: CChar.self), Int32(count)) else { return nil }
        self.context = context
        // Zeroed, then ours: every callback not set here (tree building, DTD loading, text) is
        // off. Copied into the handler the context owns, as xmlSAXUserParseMemory does.
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        Self.install(into: &sax)
        context.pointee.sax.pointee = sax
        _ = xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue))
        // The user data stays the context (default behaviour libxml2 relies on internally); the
        // OPMLParser is found through the context's `_private` field.
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        // The context does not own the document libxml2 makes to record the entity declaration
        // the parse stopped at ("for expat compatibility in SAX mode"); usually there is none.
        xmlFreeDoc(context.pointee.myDoc)
        xmlFreeParserCtxt(context)
    }

    /// Records why the file cannot be read and stops libxml2 for good.
    private func fail(_ kind: OPMLError.Kind) {
        guard failure == nil else { return }
        failure = kind
        xmlStopParser(context)
    }

    /// Where libxml2 is reading: line, and column (just past what it last read).
    private var position: (line: Int, column: Int) {
        (Int(xmlSAX2GetLineNumber(context)), Int(xmlSAX2GetColumnNumber(context)))
    }

    private func didStartElement(_ localName: UnsafePointer<xmlChar>, attributes: OPMLAttributes) {
        let name = String(cString: localName)
        guard sawRoot else {
            sawRoot = true
            if name.lowercased() != "opml" { fail(.notOPML(root: name, line: position.line, column: position.column)) }
            return
        }
        guard name.lowercased() == "outline", let feedURL = attributes["xmlurl"], !feedURL.isEmpty else { return }
        guard entries.count < OPMLReader.maxOutlines else { return fail(.tooManyOutlines) }
        entries.append(Entry(feedURL: feedURL, title: attributes["title"], text: attributes["text"], htmlURL: attributes["htmlurl"]))
    }

    // MARK: Callbacks (capture-free C functions; the parser comes back through `_private`)

    private static func instance(from context: UnsafeMutableRawPointer?) -> OPMLParser? {
        guard let context, let me = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return nil }
        return Unmanaged<OPMLParser>.fromOpaque(me).takeUnretainedValue()
    }

    private static func install(into sax: inout xmlSAXHandler) {
        sax.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
            guard let localName, let parser = OPMLParser.instance(from: context) else { return }
            parser.didStartElement(localName, attributes: OPMLAttributes(attributes, count: Int(attributeCount)))
        }
        sax.entityDecl = { context, _, _, _, _, _ in
            guard let parser = OPMLParser.instance(from: context) else { return }
            parser.fail(.declaresEntities(line: parser.position.line, column: parser.position.column))
        }
        sax.serror = { context, error in
            guard let parser = OPMLParser.instance(from: context), let error else { return }
            // Only fatal errors break a document; namespace slips (an undeclared prefix) do not.
            guard error.pointee.level == XML_ERR_FATAL else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
            parser.fail(.malformed(line: Int(error.pointee.line), column: Int(error.pointee.int2), message: message.singleLine()))
        }
    }
}
