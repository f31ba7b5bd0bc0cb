extension FeedBuilder {
    /// A text element whose content is kept, and what it becomes.
    enum Field {
        case feedTitle, feedLink, feedDescription, feedSubtitle, feedSummary, feedAuthor
        case feedAuthorName, feedImageURL, feedLogo, feedLanguage, feedNewURL, feedLocked
        case feedFunding(url: String?)
        case itemTitle, itemGUID, itemLink, itemDescription, itemSummary, itemContentEncoded
        case itemAtomContent, itemMediaDescription, itemPublished, itemUpdated, itemDuration
        case itemSeason, itemEpisode, itemEpisodeType, itemExplicit, itemBlock
    }
}
