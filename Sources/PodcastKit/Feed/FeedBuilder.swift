import FoundationEssentials
import PodcastText

/// Builds a `Feed` from XML events: which element means what, and in which context (a `<title>`
/// inside `<image>` is not the show's title). RSS 0.9x/1.0/2.0 and Atom, with the iTunes,
/// Google Play, Media RSS, Dublin Core, content, Podcasting 2.0 and Podlove vocabularies.
///
/// A value: the parser that reads the document holds it and lends it to libxml2's callbacks for
/// each piece it parses (`XMLPushParser.parse(_:into:)`).
struct FeedBuilder {
    /// What the document as a whole turned out to be, for the parser's result and warnings.
    struct Findings {
        /// The root element's format once the first tag was seen; nil before, or for a non-feed.
        var format: FeedFormat?
        /// The root element when the document is not a feed (`html`, `opml`, …).
        var rejectedRoot: String?
        /// How many texts were cut at `maxTextBytes`.
        var truncatedTexts = 0
        /// True when the feed had more items than `maxItems` (the rest were not read).
        var itemLimitReached = false
        /// True once reading should stop (not a feed, or too many items); later events change nothing.
        var stopped = false
    }

    private(set) var findings = Findings()

    /// The most text kept for one element; descriptions beyond it are cut.
    static let maxTextBytes = 512 * 1024
    /// The most items read from one document.
    static let maxItems = 50_000

    private let resolver: URLResolver
    private var feed: Feed
    private var channel = ChannelDraft()
    private var item: ItemDraft?
    /// The episodes of the finished items, in document order.
    private var episodes: [Episode] = []
    /// How many items were finished.
    private var itemCount = 0
    private var stack: [XMLName] = []
    private var fields: [Field?] = []
    /// The resolvers of the open elements that declare an `xml:base`, innermost last, with the
    /// depth of each (most documents declare none, so nothing is kept per element).
    private var bases: [(depth: Int, resolver: URLResolver)] = []
    /// The text of the element being read (up to `maxTextBytes`), as UTF-8.
    private var text: [UInt8] = []
    /// The depth of the element whose text is being read; nested markup's text is read with it.
    private var captureDepth: Int?
    /// How the kept text is written, for Atom text constructs that say (`type`).
    private var captureType: AtomTextType?
    private var itemDepth = 0
    /// What the last item recorded (see `ItemDraft.recordedSize`).
    private var lastItemSize = (textBytes: 0, fields: 0)

    /// Resolves the current element's relative URLs: against the nearest `xml:base`, else the
    /// document's URL.
    private var base: URLResolver { bases.last?.resolver ?? resolver }

    /// A builder for the document at `url`, whose relative URLs resolve against `url` (or against
    /// an `xml:base` the document declares around them).
    init(url: String) {
        resolver = URLResolver(documentURL: url)
        feed = Feed(url: url)
    }

    /// The feed read so far, its episodes in document order. Call once: the episodes are moved
    /// out, not copied (a long feed's are MBs), and reading ends with it.
    mutating func result() -> Feed {
        var result = feed
        channel.apply(to: &result)
        swap(&result.episodes, &episodes)
        return result
    }

    // MARK: What XMLPushParser reads, in document order

    /// A start tag; `spelling` is its local name as written; `attributes` is valid only during the call.
    mutating func didStartElement(_ name: XMLName, spelling: String, attributes: XMLAttributes) {
        guard !findings.stopped else { return }
        if stack.isEmpty {
            guard let format = FeedFormat(root: name) else {
                findings.rejectedRoot = spelling
                findings.stopped = true
                return
            }
            findings.format = format
            if let language = attributes.value("lang", in: .xml) { channel.language = language }
        }
        let parent = stack.last
        stack.append(name)
        // `base` is only worked out when there is an xml:base: this runs for every element.
        if let declared = attributes.value("base", in: .xml), let declaredBase = base.resolve(declared) {
            bases.append((stack.count, URLResolver(documentURL: declaredBase)))
        }
        guard captureDepth == nil else {
            fields.append(nil)
            return
        }
        let field = item != nil ? startItemElement(name, parent: parent, attributes: attributes)
            : startChannelElement(name, parent: parent, attributes: attributes)
        fields.append(field)
        if field != nil {
            captureDepth = stack.count
            captureType = name.namespace == .atom ? AtomTextType(attributes) : nil
            text.removeAll(keepingCapacity: true)
        }
    }

    /// The end tag of the innermost open element.
    mutating func didEndElement() {
        guard !findings.stopped, let name = stack.last else { return }
        if captureDepth == stack.count, let field = fields.last ?? nil {
            captureDepth = nil
            endField(field)
        }
        // Taken out of `item`, not copied: a copy retains and releases every field of the draft.
        if isItemElement(name), stack.count == itemDepth, let finished = item.take() {
            lastItemSize = finished.recordedSize
            episodes.append(finished.episode(resolver: base))
            itemCount += 1
            if itemCount >= Self.maxItems {
                findings.itemLimitReached = true
                findings.stopped = true
            }
        }
        if bases.last?.depth == stack.count { bases.removeLast() }
        stack.removeLast()
        fields.removeLast()
    }

    /// Character data (text or CDATA), already decoded to UTF-8; valid only during the call.
    mutating func didReceiveText(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !findings.stopped, captureDepth != nil else { return }
        let room = Self.maxTextBytes - text.count
        guard room > 0 else { return }
        if bytes.count > room { findings.truncatedTexts += 1 }
        let kept = UnsafeBufferPointer(rebasing: bytes.prefix(room))
        // A character reference arrives alone, as one character (escaped HTML has dozens an item:
        // `&#60;p&#62;`). Its few bytes are appended one by one: setting up a bulk copy costs more.
        if kept.count <= 4 {
            for byte in kept { text.append(byte) }
        } else {
            text.append(contentsOf: kept)
        }
    }

    /// Takes in the text read for `field`, in the item being read or in the channel.
    private mutating func endField(_ field: Field) {
        if item != nil {
            item?.record(field, text: text, type: captureType, base: bases.last?.resolver)
            return
        }
        let decoded = text.withUnsafeBufferPointer { field.decode($0, type: captureType) }
        guard let (value, trimmed) = decoded else { return }
        endChannelField(field, value, trimmed)
    }

    private func isItemElement(_ name: XMLName) -> Bool {
        switch (name.namespace, name.local) {
        case (.none, .item), (.rss1, .item), (.atom, .entry): true
        default: false
        }
    }

    private func isChannel(_ name: XMLName?) -> Bool {
        guard let name else { return false }
        switch (name.namespace, name.local) {
        case (.none, .channel), (.rss1, .channel), (.atom, .feed): return true
        default: return false
        }
    }

    /// Where a show's `<image>` sits: in the channel, or beside it under RSS 1.0's `rdf:RDF`.
    private func holdsShowImage(_ name: XMLName?) -> Bool {
        isChannel(name) || name == XMLName(namespace: .rdf, local: .RDF)
    }

    private mutating func startChannelElement(_ name: XMLName, parent: XMLName?, attributes: XMLAttributes) -> Field? {
        if isItemElement(name) {
            item = ItemDraft(reserving: lastItemSize)
            itemDepth = stack.count
            return nil
        }
        if let parent, parent.local == .image, parent.namespace == .none || parent.namespace == .rss1,
            holdsShowImage(stack.dropLast(2).last), name.local == .url {
            return .feedImageURL
        }
        if let parent, parent.namespace == .atom, parent.local == .author, isChannel(stack.dropLast(2).last),
            name.namespace == .atom, name.local == .name {
            return .feedAuthorName
        }
        guard isChannel(parent) else { return nil }
        switch (name.namespace, name.local) {
        case (.none, .title), (.rss1, .title), (.atom, .title): return .feedTitle
        case (.dublinCore, .title): return .feedFallbackTitle
        case (.none, .link), (.rss1, .link): return .feedLink
        case (.atom, .link):
            channelLink(attributes)
            return nil
        case (.none, .description), (.rss1, .description): return .feedDescription
        case (.atom, .subtitle), (.atom, .tagline): return .feedSubtitle
        case (.itunes, .summary), (.googleplay, .description), (.dublinCore, .description): return .feedSummary
        case (.itunes, .subtitle): return .feedITunesSubtitle
        case (.itunes, .author), (.googleplay, .author), (.dublinCore, .creator), (.none, .managingEditor),
            (.none, .author), (.dublinCore, .author):
            return .feedAuthor
        case (.itunes, .image), (.googleplay, .image):
            if channel.image == nil { channel.image = Self.imageReference(attributes).flatMap(base.resolve) }
            return nil
        case (.media, .thumbnail), (.media, .content):
            let isImage = name.local == .thumbnail
                || ItemDraft.Media.isImage(medium: attributes.value("medium"), type: attributes.value("type"))
            if channel.mediaImage == nil, isImage { channel.mediaImage = attributes.value("url").flatMap(base.resolve) }
            return nil
        case (.atom, .logo), (.atom, .icon): return .feedLogo
        case (.none, .language), (.dublinCore, .language): return .feedLanguage
        case (.itunes, .newFeedURL): return .feedNewURL
        case (.podcast, .locked): return .feedLocked
        case (.podcast, .funding): return .feedFunding(url: attributes.value("url"))
        default: return nil
        }
    }

    private mutating func channelLink(_ attributes: XMLAttributes) {
        guard let href = attributes.value("href").flatMap(base.resolve) else { return }
        switch attributes.value("rel") ?? "alternate" {
        case "alternate": if channel.atomLink == nil { channel.atomLink = href }
        case "next": if feed.nextPageURL == nil { feed.nextPageURL = href }
        default: break
        }
    }

    /// Records a channel field's text: `value` as written for fields that keep markup, and
    /// `trimmed`, which is not empty.
    private mutating func endChannelField(_ field: Field, _ value: String, _ trimmed: String) {
        switch field {
        case .feedTitle: if feed.title.isEmpty { feed.title = trimmed.singleLine() }
        case .feedFallbackTitle: channel.fallbackTitle = channel.fallbackTitle ?? trimmed.singleLine()
        case .feedLink: if channel.rssLink == nil { channel.rssLink = base.resolve(trimmed) }
        case .feedDescription: channel.description = channel.description ?? value
        case .feedSubtitle: channel.subtitle = channel.subtitle ?? value
        case .feedSummary: channel.summary = channel.summary ?? value
        case .feedITunesSubtitle: channel.itunesSubtitle = channel.itunesSubtitle ?? value
        case .feedAuthor: channel.author = channel.author ?? trimmed.singleLine()
        case .feedAuthorName: channel.atomAuthor = channel.atomAuthor ?? trimmed.singleLine()
        case .feedImageURL: channel.rssImage = channel.rssImage ?? base.resolve(trimmed)
        case .feedLogo: channel.logo = channel.logo ?? base.resolve(trimmed)
        case .feedLanguage: channel.language = trimmed
        case .feedNewURL: feed.newFeedURL = feed.newFeedURL ?? base.resolve(trimmed)
        case .feedLocked: feed.isLocked = ["yes", "true"].contains(trimmed.lowercased())
        case .feedFunding(let url):
            if let url = url.flatMap(base.resolve) {
                feed.funding.append(Feed.Link(url: url, title: trimmed.singleLine()))
            }
        default: break
        }
    }

    // MARK: Items

    private mutating func startItemElement(_ name: XMLName, parent: XMLName?, attributes: XMLAttributes) -> Field? {
        guard item != nil else { return nil }
        // `base` is read into a value before the draft is changed in place (which holds `self`
        // for the change), and only by the elements that have a URL: copying the resolver for
        // every element of every item cost more than their other work.
        let inItem = stack.count == itemDepth + 1
        switch (name.namespace, name.local) {
        case (.media, .content):
            // Directly in the item or inside <media:group>.
            let media = ItemDraft.Media(
                url: attributes.value("url").flatMap(base.resolve), type: attributes.value("type"),
                length: attributes.value("fileSize"), medium: attributes.value("medium"), duration: attributes.value("duration"))
            item?.mediaContents.append(media)
            return nil
        case (.media, .thumbnail):
            if item?.mediaThumbnail == nil {
                let url = attributes.value("url").flatMap(base.resolve)
                item?.mediaThumbnail = url
            }
            return nil
        case (.media, .description): return .itemMediaDescription
        case (.podcast, .alternateEnclosure):
            // Recorded at any depth, so its <podcast:source> and <podcast:integrity> children always
            // have an entry to go to (a nested one once crashed the parser under fuzzing).
            item?.alternates.append(AlternateEnclosure(
                type: attributes.value("type"), length: attributes.value("length").flatMap(ItemDraft.byteCount),
                sources: [], integrity: nil))
            return nil
        case (.podcast, .source) where parent?.namespace == .podcast && parent?.local == .alternateEnclosure:
            if let uri = attributes.value("uri").flatMap(base.resolve), let last = item?.alternates.indices.last {
                item?.alternates[last].sources.append(uri)
            }
            return nil
        case (.podcast, .integrity) where parent?.namespace == .podcast && parent?.local == .alternateEnclosure:
            if let type = attributes.value("type"), let value = attributes.value("value"), let last = item?.alternates.indices.last {
                item?.alternates[last].integrity = Integrity(type: type, value: value)
            }
            return nil
        case (.psc, .chapters):
            item?.chapterLists += 1
            return nil
        case (.psc, .chapter):
            // Podlove allows one chapter list per episode: later ones are ignored.
            if item?.chapterLists ?? 0 <= 1, let start = attributes.value("start").flatMap(ChapterTime.seconds) {
                let chapter = Chapter(start: start, title: attributes.value("title") ?? "", link: attributes.value("href").flatMap(base.resolve))
                item?.episode.chapters.append(chapter)
            }
            return nil
        default:
            break
        }
        guard inItem else { return nil }
        switch (name.namespace, name.local) {
        case (.none, .title), (.rss1, .title), (.atom, .title): return .itemTitle
        case (.dublinCore, .title), (.media, .title): return .itemFallbackTitle
        case (.none, .guid):
            item?.guidIsPermaLink = attributes.value("isPermaLink")?.lowercased() != "false"
            return .itemGUID
        case (.atom, .id): return .itemGUID
        case (.none, .link), (.rss1, .link): return .itemLink
        case (.atom, .link):
            itemLink(attributes)
            return nil
        case (.none, .enclosure):
            let media = ItemDraft.Media(
                url: attributes.value("url").flatMap(base.resolve), type: attributes.value("type"), length: attributes.value("length"))
            item?.enclosures.append(media)
            return nil
        case (.none, .description), (.rss1, .description): return .itemDescription
        case (.itunes, .summary), (.atom, .summary), (.googleplay, .description), (.dublinCore, .description):
            return .itemSummary
        case (.itunes, .subtitle): return .itemSubtitle
        case (.content, .encoded): return .itemContentEncoded
        case (.atom, .content): return .itemAtomContent
        case (.none, .pubDate), (.dublinCore, .date), (.dublinCore, .issued), (.dublinCore, .created), (.atom, .published),
            (.atom, .issued):
            return .itemPublished
        case (.atom, .updated), (.atom, .modified), (.dublinCore, .modified): return .itemUpdated
        case (.itunes, .duration): return .itemDuration
        case (.itunes, .season), (.podcast, .season): return .itemSeason
        case (.itunes, .episode), (.podcast, .episode): return .itemEpisode
        case (.itunes, .episodeType): return .itemEpisodeType
        case (.itunes, .explicit): return .itemExplicit
        case (.itunes, .block): return .itemBlock
        case (.itunes, .image), (.googleplay, .image):
            if item?.episode.image == nil {
                let url = Self.imageReference(attributes).flatMap(base.resolve)
                item?.episode.image = url
            }
            return nil
        case (.podcast, .transcript):
            if let url = attributes.value("url").flatMap(base.resolve) {
                let transcript = Transcript(url: url, type: attributes.value("type"))
                item?.episode.transcripts.append(transcript)
            }
            return nil
        case (.podcast, .chapters):
            if item?.episode.chaptersURL == nil {
                let url = attributes.value("url").flatMap(base.resolve)
                item?.episode.chaptersURL = url
            }
            return nil
        default:
            return nil
        }
    }

    private mutating func itemLink(_ attributes: XMLAttributes) {
        let base = self.base
        guard let href = attributes.value("href").flatMap(base.resolve) else { return }
        switch attributes.value("rel") ?? "alternate" {
        case "alternate": if item?.atomLink == nil { item?.atomLink = href }
        case "enclosure":
            item?.enclosures.append(ItemDraft.Media(url: href, type: attributes.value("type"), length: attributes.value("length")))
        default: break
        }
    }

    /// An iTunes or Google Play image's URL: `href`, or `url`, a common mistake for it.
    private static func imageReference(_ attributes: XMLAttributes) -> String? {
        attributes.value("href") ?? attributes.value("url")
    }
}

/// How an Atom text construct (title, subtitle, summary, content) says its text is written.
enum AtomTextType: Sendable {
    case html, xhtml

    /// The type an element's `type` (Atom 1.0) or `mode` (Atom 0.3) declares; nil for plain text
    /// or anything else.
    init?(_ attributes: XMLAttributes) {
        switch attributes.value("type")?.lowercased() {
        case "html", "text/html": self = .html
        case "xhtml", "application/xhtml+xml": self = .xhtml
        default:
            guard attributes.value("mode")?.lowercased() == "escaped" else { return nil }
            self = .html
        }
    }
}
