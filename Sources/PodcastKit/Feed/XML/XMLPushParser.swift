import CLibXML2
import PodcastText

/// libxml2's SAX2 push parser, hardened for documents from strangers, fed chunk by chunk as bytes
/// arrive; it keeps no document in memory. What it reads goes straight to a `FeedBuilder`, on the
/// thread that feeds it, while libxml2's buffers are still valid: nothing is copied on the way,
/// and element names are turned into `XMLName`s once per distinct name (`InternedNames`).
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
    /// True when libxml2 reads the bytes as UTF-8 without an encoder, which would otherwise hold
    /// back a character cut at the end of a chunk.
    private var readsUTF8Natively = false
    private var names = InternedNames()
    private var finished = false

    /// The largest piece handed to libxml2 at once (one chunk over 10 MB needs XML_PARSE_HUGE).
    private static let chunkSize = 32 * 1024

    /// What libxml2's callbacks work with during one `parse` or `finish` call, reached through
    /// the parser context's `_private` for that call only: the builder lent to the call, and the
    /// parser's bookkeeping, moved in for the call and back out after it. The callbacks, hundreds
    /// of thousands a feed, then touch no object's properties, whose exclusivity checks cost more
    /// than the work of most events; the builder is still accessed exclusively, once for the
    /// whole call.
    private struct Session {
        var names: InternedNames
        var firstProblem: XMLProblem?
        var ignoredEntityDeclarations: Int
        let builder: UnsafeMutablePointer<FeedBuilder>
    }

    /// A parser for a document whose `encoding`, when given, overrides its own declaration (an
    /// HTTP charset); `documentURL` only appears in libxml2's bookkeeping.
    init?(documentURL: String, encoding: String?) {
        podcast_xml_silence_generic_errors()
        var sax = xmlSAXHandler()
        xmlSAXVersion(&sax, 2)
        Self.install(into: &sax)
        guard let context = xmlCreatePushParserCtxt(&sax, nil, nil, 0, documentURL) else { return nil }
        self.context = context
        var options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOWARNING.rawValue)
        if let encoding {
            options |= Int32(XML_PARSE_IGNORE_ENC.rawValue)
            if encoding == "UTF-8" {
                // Named, libxml2 2.9 runs every byte through a UTF-8 to UTF-8 "conversion", a copy
                // of the whole document; its native UTF-8 reads the same bytes without it. (The
                // bytes handed to it are valid UTF-8, repaired, and chunks end between characters.)
                _ = xmlSwitchEncoding(context, XML_CHAR_ENCODING_UTF8)
                readsUTF8Natively = true
            } else {
                _ = xmlCtxtResetPush(context, nil, 0, documentURL, encoding)
            }
        }
        _ = xmlCtxtUseOptions(context, options)
        // After any reset, which frees myDoc: see the type's comment.
        context.pointee.myDoc = xmlNewDoc("1.0")
    }

    deinit {
        // The parser context does not own its document.
        if let document = context.pointee.myDoc {
            xmlFreeDoc(document)
            context.pointee.myDoc = nil
        }
        xmlFreeParserCtxt(context)
    }

    /// Parses the next bytes of the document, handing what they hold to `builder`.
    func parse(_ bytes: UnsafeRawBufferPointer, into builder: inout FeedBuilder) {
        guard !finished, var start = bytes.baseAddress else { return }
        var remaining = bytes.count
        withSession(lending: &builder) {
            while remaining > 0 {
                var size = min(remaining, Self.chunkSize)
                // A chunk ends before the byte that starts a character, not inside one.
                while readsUTF8Natively && size < remaining && size > 1 && start.load(fromByteOffset: size, as: UInt8.self) & 0xC0 == 0x80 {
                    size -= 1
                }
                _ = xmlParseChunk(context, start.assumingMemoryBound(to: CChar.self), Int32(size), 0)
                start += size
                remaining -= size
            }
        }
    }

    /// Tells libxml2 the document ended, handing `builder` what that reports (elements left unclosed).
    func finish(into builder: inout FeedBuilder) {
        guard !finished else { return }
        withSession(lending: &builder) { _ = xmlParseChunk(context, nil, 0, 1) }
        finished = true
    }

    /// Stops parsing for good: nothing more is read.
    func stop() {
        xmlStopParser(context)
        finished = true
    }

    /// Runs `body` (which calls into libxml2) with a session for `builder` in the context's `_private`.
    private func withSession(lending builder: inout FeedBuilder, _ body: () -> Void) {
        withUnsafeMutablePointer(to: &builder) { builder in
            var session = Session(
                names: names, firstProblem: firstProblem, ignoredEntityDeclarations: ignoredEntityDeclarations,
                builder: builder)
            // The session holds the only reference to the table, so that adding to it copies nothing.
            names = InternedNames()
            withUnsafeMutablePointer(to: &session) { session in
                context.pointee._private = UnsafeMutableRawPointer(session)
                body()
                context.pointee._private = nil
            }
            names = session.names
            firstProblem = session.firstProblem
            ignoredEntityDeclarations = session.ignoredEntityDeclarations
        }
    }

    // MARK: Callbacks (capture-free C functions; the session comes back through `_private`)

    /// The session of the `parse` or `finish` call that libxml2 is calling back from, if any.
    private static func session(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<Session>? {
        context?.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private?.assumingMemoryBound(to: Session.self)
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
            XMLPushParser.session(context)?.pointee.ignoredEntityDeclarations += 1
        }
        sax.getEntity = { _, name in
            guard let name else { return nil }
            return HTMLEntityDeclarations.entity(named: String(cString: name))
        }
        sax.startElementNs = { context, localName, prefix, uri, _, _, attributeCount, _, attributes in
            guard let localName, let session = XMLPushParser.session(context) else { return }
            let (name, spelling) = session.pointee.names.name(local: localName, prefix: prefix, uri: uri)
            session.pointee.builder.pointee.didStartElement(
                name, spelling: spelling, attributes: XMLAttributes(attributes, count: Int(attributeCount)))
        }
        sax.endElementNs = { context, _, _, _ in
            XMLPushParser.session(context)?.pointee.builder.pointee.didEndElement()
        }
        sax.characters = { context, text, length in
            guard let text, let session = XMLPushParser.session(context) else { return }
            session.pointee.builder.pointee.didReceiveText(UnsafeBufferPointer(start: text, count: Int(length)))
        }
        sax.cdataBlock = sax.characters
        sax.serror = { context, error in
            guard let session = XMLPushParser.session(context), let error else { return }
            // Undeclared prefixes (`itunes:` without xmlns:itunes) are common and resolved by prefix.
            guard error.pointee.domain != Int32(XML_FROM_NAMESPACE.rawValue) else { return }
            if session.pointee.firstProblem == nil {
                let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
                session.pointee.firstProblem = XMLProblem(
                    line: Int(error.pointee.line), column: Int(error.pointee.int2), message: message.singleLine())
            }
        }
    }
}
