import PodcastText

/// Which of some titles a word the user typed names (`podcast unsubscribe "tiny tech"`): those
/// written exactly so, else those that differ from it only in letter case, else none, with the
/// title a typo most likely meant.
public enum TitleReference: Equatable, Sendable {
    /// The titles, by index, written exactly as the word.
    case exact([Int])
    /// No title is written so; these, by index, are when letter case is ignored.
    case ignoringCase([Int])
    /// No title fits; `suggestion` is the one the word most likely meant (a typo of it, or a part
    /// of no other title), when there is one.
    case none(suggestion: String?)

    /// The titles among `titles` that `word` names.
    public init(_ word: String, titles: [String]) {
        let exact = titles.indices.filter { titles[$0] == word }
        if !exact.isEmpty {
            self = .exact(exact)
            return
        }
        let lowered = word.lowercased()
        let folded = titles.map { $0.lowercased() }
        let ignoringCase = folded.indices.filter { folded[$0] == lowered }
        if !ignoringCase.isEmpty {
            self = .ignoringCase(ignoringCase)
            return
        }
        let containing = folded.indices.filter { !lowered.isEmpty && folded[$0].contains(lowered) }
        if containing.count == 1 {
            self = .none(suggestion: titles[containing[0]])
            return
        }
        // A typo: at most 2 edits, and fewer than a third of the word, so "ab" suggests no "xy".
        let close = folded.indices.map { ($0, EditDistance.between(lowered, folded[$0])) }
            .filter { $0.1 <= min(2, lowered.count / 3) }
        self = .none(suggestion: close.min { $0.1 < $1.1 }.map { titles[$0.0] })
    }
}
