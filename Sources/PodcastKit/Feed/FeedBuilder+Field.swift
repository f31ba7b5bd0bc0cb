extension FeedBuilder {
    /// A text element whose content is kept, and what it becomes.
    enum Field {
        case feedTitle, feedFallbackTitle, feedLink, feedDescription, feedSubtitle, feedSummary, feedITunesSubtitle
        case feedAuthor, feedAuthorName, feedImageURL, feedLogo, feedLanguage, feedNewURL, feedLocked
        case feedFunding(url: String?)
        case itemTitle, itemFallbackTitle, itemGUID, itemLink, itemDescription, itemSummary, itemSubtitle
        case itemContentEncoded, itemAtomContent, itemMediaDescription, itemPublished, itemUpdated, itemDuration
        case itemSeason, itemEpisode, itemEpisodeType, itemExplicit, itemBlock
    }
}
