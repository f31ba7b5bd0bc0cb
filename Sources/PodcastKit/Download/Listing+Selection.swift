extension Listing {
    /// The items `words` (a `<selection>`) name, narrowed by `filter`, in the selection's order;
    /// `records` (the progress buffer's, by identity) tells which are `new`.
    public func selectedItems(_ words: [String], filter: SelectionFilter, records: [String: DownloadRecord]) throws -> [DownloadItem] {
        let new = words.contains { $0.lowercased().contains("new") } ? newNumbers(records: records) : []
        let numbers = try Selection(words).numbers(inListingOf: items.count, isNew: new.contains)
        let chosen = Set(try filter.apply(DownloadItem.items(numbers, of: self).map(\.entry)).map(\.number))
        return DownloadItem.items(numbers.filter(chosen.contains), of: self)
    }
}
