import FoundationEssentials
import PodcastHTTP
import PodcastText

extension FeedBuilder {
    /// Show-level values met so far, several candidates per field, resolved at the end by priority.
    struct ChannelDraft {
        /// `dc:title`, used when there is no `<title>`.
        var fallbackTitle: String?
        var rssLink: String?
        var atomLink: String?
        var description: String?
        var subtitle: String?
        var summary: String?
        var itunesSubtitle: String?
        var author: String?
        var atomAuthor: String?
        var image: String?
        var rssImage: String?
        var logo: String?
        /// A channel-level `media:thumbnail`, or `media:content` that is an image.
        var mediaImage: String?
        var language: String?

        func apply(to feed: inout Feed) {
            if feed.title.isEmpty, let fallbackTitle { feed.title = fallbackTitle }
            feed.link = rssLink ?? atomLink
            feed.description = [description, subtitle, summary, itunesSubtitle].lazy.compactMap { $0 }
                .map { HTMLText.plainText($0) }.first { !$0.isEmpty }
            feed.author = author ?? atomAuthor
            feed.image = image ?? rssImage ?? logo ?? mediaImage
            feed.language = language
        }
    }

    /// One item being read: the episode plus the candidates its fields are chosen from.
    ///
    /// Attributes are taken in as they are read; the texts of fields are only recorded, as bytes,
    /// and decoded when the episode is made (`episode(resolver:)`).
    struct ItemDraft: Sendable {
        /// An `<enclosure>`, Atom enclosure link or `<media:content>`: its URL made absolute, the
        /// rest as written.
        struct Media: Sendable {
            var url: String?
            var type: String?
            var length: String?
            var medium: String? = nil
            var duration: String? = nil

            /// Whether Media RSS says this is a picture (artwork, not the episode's media).
            var isImage: Bool { Self.isImage(medium: medium, type: type) }

            /// Whether a `medium` or MIME `type` names a picture.
            static func isImage(medium: String?, type: String?) -> Bool {
                medium?.lowercased() == "image" || type?.lowercased().hasPrefix("image/") == true
            }
        }

        var episode = Episode(title: "")
        /// `dc:title` or `media:title`, used when there is no `<title>`.
        var fallbackTitle: String?
        /// How many `psc:chapters` lists were met; only the first one's chapters are kept.
        var chapterLists = 0
        var enclosures: [Media] = []
        var mediaContents: [Media] = []
        var mediaThumbnail: String?
        var alternates: [AlternateEnclosure] = []
        var rssLink: String?
        var atomLink: String?
        var guidIsPermaLink = false
        private var published: Date?
        private var updated: Date?
        /// The recorded texts, one after another, and what each one is.
        private var texts: [UInt8] = []
        private var fields: [RecordedField] = []

        /// The most text recorded for one item; a field beyond it is dropped. Real items hold a few
        /// KiB; this bounds a hostile one that repeats large elements.
        static let maxRecordedBytes = 2 * FeedBuilder.maxTextBytes

        private struct RecordedField: Sendable {
            var field: Field
            var range: Range<Int>
            var type: AtomTextType?
            /// The `xml:base` in force where the text was read, when not the item's own.
            var base: URLResolver?
        }

        /// How much was recorded: room for as much is reserved in the next item's draft (items of
        /// one feed look alike), so recording does not grow the arrays step by step.
        var recordedSize: (textBytes: Int, fields: Int) { (texts.count, fields.count) }

        /// A draft with room reserved for `size` of recorded texts.
        init(reserving size: (textBytes: Int, fields: Int) = (0, 0)) {
            texts.reserveCapacity(min(size.textBytes, Self.maxRecordedBytes))
            fields.reserveCapacity(size.fields)
        }

        /// Records the text (UTF-8 bytes) read for `field`, written as `type` says (Atom), read
        /// under `base` when an `xml:base` was in force.
        mutating func record(_ field: Field, text: [UInt8], type: AtomTextType?, base: URLResolver?) {
            guard texts.count + text.count <= Self.maxRecordedBytes else { return }
            let start = texts.count
            texts.append(contentsOf: text)
            fields.append(RecordedField(field: field, range: start..<texts.count, type: type, base: base))
        }

        /// The finished episode, its URLs made absolute (those not already) against `resolver`.
        consuming func episode(resolver: URLResolver) -> Episode {
            let notes = applyRecordedFields(resolver: resolver)
            var episode = self.episode
            let media = enclosures.first { $0.url.flatMap(resolver.resolve) != nil } ?? preferredMediaContent(resolver)
            if let media, let url = media.url.flatMap(resolver.resolve) {
                episode.enclosure = Enclosure(url: url, type: media.type?.lowercased(), length: media.length.flatMap(Self.byteCount))
                if episode.duration == nil { episode.duration = media.duration.flatMap(EpisodeDuration.seconds) }
            }
            episode.alternateEnclosures = alternates.map { alternate in
                var resolved = alternate
                resolved.sources = alternate.sources.compactMap(resolver.resolve)
                return resolved
            }
            episode.link = rssLink.flatMap(resolver.resolve) ?? atomLink.flatMap(resolver.resolve)
                ?? (guidIsPermaLink ? episode.guid.flatMap(Self.webAddress) : nil)
            episode.published = published ?? updated
            episode.image = episode.image ?? mediaThumbnail.flatMap(resolver.resolve)
                ?? mediaContents.lazy.filter(\.isImage).compactMap { $0.url.flatMap(resolver.resolve) }.first
            episode.description = notes
            if episode.title.isEmpty {
                episode.title = fallbackTitle ?? episode.enclosure.map { Self.fileStem(of: $0.url) } ?? ""
            }
            return episode
        }

        /// Decodes the recorded texts and takes each in, in document order; returns the show
        /// notes. A text that cannot change the episode (a second title, show notes of a rank
        /// already beaten) is not decoded at all.
        private mutating func applyRecordedFields(resolver: URLResolver) -> String? {
            // The show notes as plain text, from the best-ranked candidate that has any; of each
            // rank only the first candidate that is not blank counts.
            var notes: (text: String, rank: Int)?
            var offeredRanks: UInt64 = 0
            let texts = self.texts
            texts.withUnsafeBufferPointer { texts in
                for recorded in fields {
                    let text = UnsafeBufferPointer(rebasing: texts[recorded.range])
                    if let rank = recorded.field.notesRank {
                        guard offeredRanks & 1 << UInt64(rank) == 0, rank < notes?.rank ?? Int.max,
                            let plain = recorded.field.plainNotes(text, type: recorded.type)
                        else { continue }
                        offeredRanks |= 1 << UInt64(rank)
                        if !plain.isEmpty { notes = (plain, rank) }
                        continue
                    }
                    if case .itemTitle = recorded.field, !episode.title.isEmpty { continue }
                    guard let (value, trimmed) = recorded.field.decode(text, type: recorded.type) else { continue }
                    take(recorded.field, value, trimmed, base: recorded.base ?? resolver)
                }
            }
            return notes?.text
        }

        /// Takes in a field's text: `value` as written for fields that keep markup, and `trimmed`,
        /// which is not empty; relative URLs resolve against `base`.
        private mutating func take(_ field: Field, _ value: String, _ trimmed: String, base: URLResolver) {
            switch field {
            case .itemTitle: if episode.title.isEmpty { episode.title = trimmed.singleLine() }
            case .itemFallbackTitle: fallbackTitle = fallbackTitle ?? trimmed.singleLine()
            case .itemGUID: episode.guid = episode.guid ?? trimmed
            case .itemLink: rssLink = rssLink ?? base.resolve(trimmed)
            case .itemPublished: published = published ?? FeedDate.parse(trimmed)
            case .itemUpdated: updated = updated ?? FeedDate.parse(trimmed)
            case .itemDuration: episode.duration = episode.duration ?? EpisodeDuration.seconds(trimmed)
            case .itemSeason: episode.season = episode.season ?? Int(trimmed)
            case .itemEpisode: episode.episodeNumber = episode.episodeNumber ?? Int(trimmed)
            case .itemEpisodeType: episode.episodeType = episode.episodeType ?? trimmed.lowercased()
            case .itemExplicit:
                switch trimmed.lowercased() {
                case "yes", "true", "explicit": episode.isExplicit = true
                case "no", "false", "clean": episode.isExplicit = false
                default: break
                }
            case .itemBlock: episode.isBlocked = ["yes", "true"].contains(trimmed.lowercased())
            default: break
            }
        }

        /// The `<media:content>` to use when there is no enclosure: the first audio or video one,
        /// else the first with a URL that is not a picture (pictures are artwork).
        private func preferredMediaContent(_ resolver: URLResolver) -> Media? {
            let usable = mediaContents.filter { $0.url.flatMap(resolver.resolve) != nil && !$0.isImage }
            return usable.first { media in
                let kind = media.medium ?? media.type ?? ""
                return kind.hasPrefix("audio") || kind.hasPrefix("video")
            } ?? usable.first
        }

        /// A positive byte count, or nil for absent, zero, negative or nonsense lengths.
        static func byteCount(_ text: String) -> Int64? {
            guard let count = Int64(text.trimmingWhitespace()), count > 0 else { return nil }
            return count
        }

        /// `guid` when it is a web address (RSS guids are permalinks unless they say otherwise).
        private static func webAddress(_ guid: String) -> String? {
            HTTPClient.isHTTP(guid) ? guid : nil
        }

        /// The last path segment of `url` without its extension, percent-decoded.
        static func fileStem(of url: String) -> String {
            let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let stem = name.contains(".") ? String(name[..<(name.lastIndex(of: ".") ?? name.endIndex)]) : name
            return QueryString.unescape(stem).singleLine()
        }
    }
}

/// Podlove chapter start times: `HH:MM:SS.mmm`, `MM:SS`, or plain seconds.
enum ChapterTime {
    /// Seconds from the start, or nil for text that is not a time.
    static func seconds(_ text: String) -> Double? {
        let parts = text.trimmingWhitespace().split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = Double(parts[parts.count - 1]), last >= 0 else { return nil }
        var total = last
        var scale = 60.0
        for part in parts.dropLast().reversed() {
            guard let value = Int(part), value >= 0 else { return nil }
            total += Double(value) * scale
            scale *= 60
        }
        return total
    }
}
