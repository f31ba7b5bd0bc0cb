extension FeedBuilder {
    /// A text element whose content is kept, and what it becomes.
    enum Field {
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
