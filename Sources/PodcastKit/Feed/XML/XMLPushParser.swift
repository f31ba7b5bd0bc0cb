import CLibXML2

/// libxml2's SAX2 push parser, hardened for documents from strangers, fed chunk by chunk as bytes
/// arrive; it keeps no document in memory. What it reads is recorded (`XMLEventBatch`) and
/// handed on after each chunk, for an `XMLEventHandler` to receive on whichever thread suits.
///
/// Hardening: no network (`NONET`), recover from errors (real feeds are sloppy), never substitute
/// entities, load no DTD, and ignore every entity declaration, so XXE, billion-laughs and
/// quadratic-blowup documents expand nothing. HTML named characters are supplied by
/// `HTMLEntityDeclarations`. Not Sendable: one thread feeds it from start to finish.
///
/// Ignoring declarations takes two things: a no-op `entityDecl` handler, and a document of our
/// own in `myDoc`. Without that document libxml2, "for expat compatibility in SAX mode", records
/// every declaration itself and expands it (100 MB of text from the 100 KB quadratic-blowup file).
final class XMLPushParser {
    /// The first error libxml2 reported, if any.
    private(set) var firstProblem: XMLProblem?
    /// How many entity declarations the document made (all ignored).
    private(set) var ignoredEntityDeclarations = 0

    private let context: xmlParserCtxtPtr
    /// The events read from the current chunk.
    private var batch = XMLEventBatch()
    /// Takes each chunk's events (it may swap in an empty batch to record the next ones into).
    private let deliver: (inout XMLEventBatch) -> Void
    private var namespaceCache: [UnsafeRawPointer: FeedNamespace] = [:]
    private var finished = false

    /// The largest piece handed to libxml2 at once (one chunk over 10 MB needs XML_PARSE_HUGE);
    /// its events are handed on as one batch, so this also bounds a batch's size.
    private static let chunkSize = 32 * 1024

    /// A parser that hands each chunk's events to `deliver`. `encoding`, when given, overrides
    /// the document's own declaration (an HTTP charset); `documentURL` only appears in libxml2's
    /// bookkeeping. Batches must be replayed before the parser is released (names point into it).
    init?(documentURL: String, encoding: String?, deliver: @escaping (inout XMLEventBatch) -> Void) {
        podcast_xml_silence_generic_errors()
        var sax = xmlSAXHandler()
        xmlSAXVersion(&sax, 2)
        Self.install(into: &sax)
        guard let context = xmlCreatePushParserCtxt(&sax, nil, nil, 0, documentURL) else { return nil }
        self.context = context
        self.deliver = deliver
        var options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOWARNING.rawValue)
        if let encoding {
            options |= Int32(XML_PARSE_IGNORE_ENC.rawValue)
            _ = xmlCtxtResetPush(context, nil, 0, documentURL, encoding)
        }
        _ = xmlCtxtUseOptions(context, options)
        // After any reset, which frees myDoc: see the type's comment.
        context.pointee.myDoc = xmlNewDoc("1.0")
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        context.pointee._private = nil
        // The parser context does not own its document.
        if let document = context.pointee.myDoc {
            xmlFreeDoc(document)
            context.pointee.myDoc = nil
        }
        xmlFreeParserCtxt(context)
    }

    /// Parses the next bytes of the document.
    func parse(_ bytes: UnsafeRawBufferPointer) {
        guard !finished, var start = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0, !finished {
            let size = min(remaining, Self.chunkSize)
            _ = xmlParseChunk(context, start.assumingMemoryBound(to: CChar.self), Int32(size), 0)
            start += size
            remaining -= size
            handOn()
        }
    }

    private func handOn() {
        if !finished && !batch.isEmpty { deliver(&batch) }
    }

    /// Tells libxml2 the document ended (reporting anything left unclosed).
    func finish() {
        guard !finished else { return }
        _ = xmlParseChunk(context, nil, 0, 1)
        handOn()
        finished = true
    }

    /// Stops parsing for good: nothing more is handed on.
    func stop() {
        xmlStopParser(context)
        finished = true
    }

    // MARK: Callbacks (capture-free C functions; the parser comes back through `_private`)

    private static func instance(from context: UnsafeMutableRawPointer?) -> XMLPushParser? {
        guard let context, let me = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return nil }
        return Unmanaged<XMLPushParser>.fromOpaque(me).takeUnretainedValue()
    }

    /// Runs `body` with the parser behind `context` without retaining it, which the element and
    /// text callbacks, hundreds of thousands a feed, would otherwise each do: the parser outlives
    /// them, as they come from its own `parse`.
    private static func withInstance(from context: UnsafeMutableRawPointer?, _ body: (XMLPushParser) -> Void) {
        guard let context, let me = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return }
        Unmanaged<XMLPushParser>.fromOpaque(me)._withUnsafeGuaranteedRef(body)
    }

    private static func install(into sax: inout xmlSAXHandler) {
        // Only what we handle; every default that builds a tree or loads a DTD is switched off.
        sax.startDocument = nil
        sax.endDocument = nil
        sax.internalSubset = nil
        sax.externalSubset = nil
        sax.resolveEntity = nil
        sax.notationDecl = nil
        sax.attributeDecl = nil
        sax.elementDecl = nil
        sax.unparsedEntityDecl = nil
        sax.processingInstruction = nil
        sax.comment = nil
        sax.reference = nil
        sax.ignorableWhitespace = nil
        sax.warning = nil
        sax.error = nil
        sax.fatalError = nil
        sax.entityDecl = { context, _, _, _, _, _ in
            XMLPushParser.instance(from: context)?.ignoredEntityDeclarations += 1
        }
        sax.getEntity = { _, name in
            guard let name else { return nil }
            return HTMLEntityDeclarations.entity(named: String(cString: name))
        }
        sax.startElementNs = { context, localName, prefix, uri, _, _, attributeCount, _, attributes in
            guard let localName else { return }
            XMLPushParser.withInstance(from: context) { parser in
                parser.batch.recordStart(
                    local: localName, namespace: parser.namespace(prefix: prefix, uri: uri),
                    attributes: attributes, count: Int(attributeCount), namespaceOf: parser.namespace)
            }
        }
        sax.endElementNs = { context, _, _, _ in
            XMLPushParser.withInstance(from: context) { $0.batch.recordEnd() }
        }
        sax.characters = { context, text, length in
            guard let text else { return }
            XMLPushParser.withInstance(from: context) { parser in
                parser.batch.recordText(UnsafeBufferPointer(start: text, count: Int(length)))
            }
        }
        sax.cdataBlock = sax.characters
        sax.serror = { context, error in
            guard let parser = XMLPushParser.instance(from: context), let error else { return }
            // Undeclared prefixes (`itunes:` without xmlns:itunes) are common and resolved by prefix.
            guard error.pointee.domain != Int32(XML_FROM_NAMESPACE.rawValue) else { return }
            if parser.firstProblem == nil {
                let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
                parser.firstProblem = XMLProblem(
                    line: Int(error.pointee.line), column: Int(error.pointee.int2), message: message.singleLine())
            }
        }
    }

    /// The vocabulary of a name from its namespace URI, or its prefix when undeclared; cached by
    /// pointer, since libxml2 interns names in its dictionary for the life of the parse.
    func namespace(prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?) -> FeedNamespace {
        guard let key = uri ?? prefix else { return .none }
        if let known = namespaceCache[UnsafeRawPointer(key)] { return known }
        let resolved = uri.map { FeedNamespace(uri: String(cString: $0)) } ?? FeedNamespace(prefix: String(cString: key))
        // A declared but unknown URI under a well-known prefix still means that vocabulary.
        let namespace = resolved == .other ? prefix.map { FeedNamespace(prefix: String(cString: $0)) } ?? .other : resolved
        namespaceCache[UnsafeRawPointer(key)] = namespace
        return namespace
    }
}
