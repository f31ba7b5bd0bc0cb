/// Which items of the last listing a command means: `3`, `1-5`, `2,4,9`, `all`, in any mix.
public struct Selection: Sendable, Equatable {
    private enum Part: Sendable, Equatable {
        case all
        case range(ClosedRange<Int>)
    }

    private let parts: [Part]

    /// Parses the words of a selection (each may hold comma-separated parts).
    public init(_ words: [String]) throws(UsageError) {
        var parts: [Part] = []
        for word in words {
            for piece in word.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmingWhitespace() }) {
                parts.append(try Self.part(piece))
            }
        }
        guard !parts.isEmpty else { throw UsageError("no episodes selected; give numbers such as 3, 1-5, 2,4,9 or all") }
        self.parts = parts
    }

    private static func part(_ piece: String) throws(UsageError) -> Part {
        if piece.lowercased() == "all" { return .all }
        let bounds = piece.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { Int(String($0).trimmingWhitespace()) }
        switch bounds.count {
        case 1:
            guard let number = bounds[0], number >= 1 else { break }
            return .range(number...number)
        case 2:
            guard let low = bounds[0], let high = bounds[1], low >= 1, low <= high else { break }
            return .range(low...high)
        default:
            break
        }
        throw UsageError("\"\(piece)\" is not a selection; give numbers such as 3, 1-5, 2,4,9 or all")
    }

    /// The selected numbers in ascending order, each once, for a listing of `count` items; a
    /// number beyond the listing is an error naming it and the listing's range.
    public func numbers(inListingOf count: Int) throws(UsageError) -> [Int] {
        var numbers = Set<Int>()
        for part in parts {
            switch part {
            case .all:
                guard count > 0 else { throw UsageError("the last listing is empty; run podcast episodes <feed> first") }
                numbers.formUnion(1...count)
            case .range(let range):
                guard range.upperBound <= count else {
                    let number = range.lowerBound > count ? range.lowerBound : range.upperBound
                    throw UsageError(count == 0
                        ? "the last listing is empty; run podcast episodes <feed> first"
                        : "number \(number) is not in the last listing (1–\(count)); run podcast episodes again to see it")
                }
                numbers.formUnion(range)
            }
        }
        return numbers.filter { $0 <= count }.sorted()
    }
}
