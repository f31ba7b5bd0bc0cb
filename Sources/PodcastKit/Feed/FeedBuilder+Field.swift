import PodcastText

extension FeedBuilder {
    /// A text element whose content is kept, and what it becomes.
    enum Field: Sendable {
        case feedTitle, feedFallbackTitle, feedLink, feedDescription, feedSubtitle, feedSummary, feedITunesSubtitle
        case feedAuthor, feedAuthorName, feedImageURL, feedLogo, feedLanguage, feedNewURL, feedLocked
        case feedFunding(url: String?)
        case itemTitle, itemFallbackTitle, itemGUID, itemLink, itemDescription, itemSummary, itemSubtitle
        case itemContentEncoded, itemAtomContent, itemMediaDescription, itemPublished, itemUpdated, itemDuration
        case itemSeason, itemEpisode, itemEpisodeType, itemExplicit, itemBlock

        /// For a candidate for an episode's show notes, its rank: the first of them that has any
        /// text is the one used.
        var notesRank: Int? {
            switch self {
            case .itemDescription: 0
            case .itemSummary: 1
            case .itemContentEncoded: 2
            case .itemAtomContent: 3
            case .itemMediaDescription: 4
            case .itemSubtitle: 5
            default: nil
            }
        }

        /// Whether the text is kept as written, markup and white space included (it becomes plain
        /// text later), rather than trimmed.
        var keepsMarkup: Bool {
            switch self {
            case .feedDescription, .feedSubtitle, .feedSummary, .feedITunesSubtitle: true
            default: notesRank != nil
            }
        }
    }
}

extension FeedBuilder.Field {
    /// The text read for this field (UTF-8), decoded: `value` as written, or as an Atom `type`
    /// says to read it, for fields that keep markup, else the trimmed text; and `trimmed`, which
    /// is not empty. Nil for blank text.
    func decode(_ text: UnsafeBufferPointer<UInt8>, type: AtomTextType?) -> (value: String, trimmed: String)? {
        Windows1252.withC1ControlsReplaced(text) { bytes in
            if keepsMarkup || type != nil {
                let value = readable(String(decoding: bytes, as: UTF8.self), type)
                let trimmed = value.trimmingWhitespace()
                return trimmed.isEmpty ? nil : (value, trimmed)
            }
            let trimmed = String(trimmingWhitespace: bytes)
            return trimmed.isEmpty ? nil : (trimmed, trimmed)
        }
    }

    /// The plain text of a show-notes candidate (UTF-8, written as an Atom `type` says): what
    /// `HTMLText.plainText` makes of the `value` that `decode` returns, made straight from the
    /// bytes when no `type` asks for more. Nil for blank text, which is no candidate.
    func plainNotes(_ text: UnsafeBufferPointer<UInt8>, type: AtomTextType?) -> String? {
        guard type == nil else { return decode(text, type: type).map { HTMLText.plainText($0.value) } }
        return Windows1252.withC1ControlsReplaced(text) { bytes in
            String.isBlank(bytes) ? nil : HTMLText.plainText(bytes)
        }
    }

    /// The kept text as the builder's fields expect it: an Atom `type="html"` title as plain text,
    /// and Atom XHTML text (already stripped of its markup by the XML parser) escaped so that the
    /// HTML-to-text step keeps any `<` or `&` it contains as written.
    private func readable(_ value: String, _ type: AtomTextType?) -> String {
        switch (self, type) {
        case (.feedTitle, .html), (.itemTitle, .html): HTMLText.plainText(value, links: false)
        case (.feedSubtitle, .xhtml), (.itemSummary, .xhtml), (.itemAtomContent, .xhtml):
            value.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
        default: value
        }
    }
}
