extension SearchOutcome {
    /// The songs of a music search as a listing of their previews, for `podcast download N`.
    /// A song's identity is its iTunes track id, which stays the same across searches.
    public var previewListing: Listing {
        let items = results.map { result in
            ListingItem(
                number: result.number,
                identity: "itunes-track:\(result.id)",
                title: result.artist.isEmpty ? result.name : "\(result.artist) – \(result.name)",
                enclosureURL: result.previewURL,
                enclosureType: result.previewURL.flatMap(Self.previewType))
        }
        return Listing(source: .previews(term: query.term), items: items)
    }

    private static func previewType(_ url: String) -> String? {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        if path.hasSuffix(".m4a") { return "audio/mp4" }
        if path.hasSuffix(".mp3") { return "audio/mpeg" }
        return nil
    }
}
