import CLibXML2
import Glibc
import PodcastText

/// The links of a web page (`<link>`, `<a href>`, `<base href>`), read with libxml2's HTML
/// parser, which takes pages as browsers do: unclosed tags, stray `</p>`s, attributes without
/// quotes. The page is already cut to `FeedPage.maxBytes`; the parser fetches nothing (`NONET`)
/// and reports nothing (a page is not podcast's to correct).
enum HTMLPageLinks {
    /// How much of an `<a>`'s text is kept as its title (only words are looked for in it).
    static let maxTitleBytes = 256

    /// The links of the page `bytes`, in document order; `encoding` is the HTTP charset, when
    /// one was sent (else the page's `<meta charset>` or libxml2's guess applies).
    static func read(_ bytes: [UInt8], url: String, encoding: String?) -> [FeedLink.PageLink] {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return [] }
        podcast_xml_silence_generic_errors()
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue)
        func parse(_ encoding: String?) -> htmlDocPtr? {
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { htmlReadMemory($0.baseAddress, Int32($0.count), url, encoding, options) }
            }
        }
        // A charset libxml2 does not know would lose the page: it is read again by its own.
        guard let document = parse(encoding) ?? (encoding == nil ? nil : parse(nil)) else { return [] }
        defer { xmlFreeDoc(document) }
        var links: [FeedLink.PageLink] = []
        // Walked without recursion: a page may nest elements thousands deep.
        var next = document.pointee.children
        while let node = next {
            if node.pointee.type == XML_ELEMENT_NODE, let link = link(of: node) { links.append(link) }
            if let child = node.pointee.children, node.pointee.type == XML_ELEMENT_NODE {
                next = child
                continue
            }
            var current: xmlNodePtr? = node
            next = nil
            while let at = current {
                if let sibling = at.pointee.next {
                    next = sibling
                    break
                }
                let parent = at.pointee.parent
                current = parent.map { UnsafeMutableRawPointer($0) } == UnsafeMutableRawPointer(document) ? nil : parent
            }
        }
        return links
    }

    /// The link `node` makes, if it is a `<link>`, `<a>` or `<base>` with an `href`.
    private static func link(of node: xmlNodePtr) -> FeedLink.PageLink? {
        guard let name = node.pointee.name else { return nil }
        let element = String(cString: name).lowercased()
        guard element == "link" || element == "a" || element == "base", let href = attribute("href", of: node) else { return nil }
        switch element {
        case "link":
            return FeedLink.PageLink(
                .link(rel: attribute("rel", of: node) ?? "", type: attribute("type", of: node) ?? ""), href: href,
                title: attribute("title", of: node))
        case "a":
            return FeedLink.PageLink(.anchor, href: href, title: text(of: node))
        default:
            return FeedLink.PageLink(.base, href: href)
        }
    }

    /// The value of attribute `name` of `node` (the HTML parser lower-cases attribute names).
    private static func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, name) else { return nil }
        defer { podcast_xml_free(value) }
        return String(cString: value)
    }

    /// The first `maxTitleBytes` of the text inside `node`, trimmed; nil when there is none.
    private static func text(of node: xmlNodePtr) -> String? {
        guard let content = xmlNodeGetContent(node) else { return nil }
        defer { podcast_xml_free(content) }
        let length = min(strlen(UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self)), maxTitleBytes)
        let text = String(decoding: UnsafeBufferPointer(start: content, count: length), as: UTF8.self).trimmingWhitespace()
        return text.isEmpty ? nil : text
    }
}
