import PodcastText

/// Which items of the last listing a command means: `3`, `1-5`, `6-` (6 to the end), `2,4,9`,
/// `all` and `new`, in any mix.
public struct Selection: Sendable, Equatable {
    private enum Part: Sendable, Equatable {
        case all
        case new
        case range(ClosedRange<Int>)
        case from(Int)
    }

    private let parts: [Part]

    /// The words of a selection, for messages.
    public static let words = "numbers such as 3, 1-5, 6-, 2,4,9, or all or new"

    /// Parses the words of a selection (each may hold comma-separated parts).
    public init(_ words: [String]) throws(UsageError) {
        var parts: [Part] = []
        for word in words {
            for piece in word.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmingWhitespace() }) {
                parts.append(try Self.part(piece))
            }
        }
        guard !parts.isEmpty else { throw UsageError("no episodes selected; give \(Self.words)") }
        self.parts = parts
    }

    private static func part(_ piece: String) throws(UsageError) -> Part {
        switch piece.lowercased() {
        case "all": return .all
        case "new": return .new
        default: break
        }
        let bounds = piece.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
        switch (bounds.count, bounds.map { Int($0) }) {
        case (1, let numbers):
            guard let number = numbers[0], number >= 1 else { break }
            return .range(number...number)
        case (2, let numbers) where bounds[1].isEmpty:
            guard let low = numbers[0], low >= 1 else { break }
            return .from(low)
        case (2, let numbers):
            guard let low = numbers[0], let high = numbers[1], low >= 1, low <= high else { break }
            return .range(low...high)
        default:
            break
        }
        throw UsageError("\"\(piece)\" is not a selection; give \(Self.words)")
    }

    /// The selected numbers in ascending order, each once, for a listing of `count` items, of
    /// which `isNew` tells the new ones (listed, not downloaded, queued, failed for good or deleted); a
    /// number beyond the listing is an error naming it and the listing's range.
    public func numbers(inListingOf count: Int, isNew: (Int) -> Bool = { _ in true }) throws(UsageError) -> [Int] {
        let empty = UsageError("the last listing is empty; run podcast episodes <feed> first")
        var numbers = Set<Int>()
        for part in parts {
            switch part {
            case .all:
                guard count > 0 else { throw empty }
                numbers.formUnion(1...count)
            case .new:
                guard count > 0 else { throw empty }
                numbers.formUnion((1...count).filter(isNew))
            case .from(let low):
                guard low <= count else { throw beyond(low, count: count) }
                numbers.formUnion(low...count)
            case .range(let range):
                guard range.upperBound <= count else {
                    throw count == 0 ? empty : beyond(range.lowerBound > count ? range.lowerBound : range.upperBound, count: count)
                }
                numbers.formUnion(range)
            }
        }
        return numbers.filter { $0 <= count }.sorted()
    }

    private func beyond(_ number: Int, count: Int) -> UsageError {
        count == 0
            ? UsageError("the last listing is empty; run podcast episodes <feed> first")
            : UsageError("number \(number) is not in the last listing (1–\(count)); run podcast episodes again to see it")
    }
}
