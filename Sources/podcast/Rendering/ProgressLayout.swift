import PodcastKit
import PodcastText

/// The live display's rows as text: the number right-aligned, the title, then fixed,
/// right-aligned columns (percent, bytes of total, speed, time left or what the episode waits
/// for), so nothing shifts as numbers grow. Narrow terminals drop the speed, then the total.
/// Titles that would look the same once cut are shortened from the middle instead.
struct ProgressLayout {
    /// The columns a line may fill (the terminal's width less one).
    let width: Int
    /// Digits of the largest episode number in the batch.
    let numberWidth: Int

    private static let percentWidth = 4
    private static let amountWidth = 22
    private static let compactAmountWidth = 9
    private static let speedWidth = 11
    private static let stateWidth = 12
    /// The title's room a column is dropped to keep.
    private static let smallestTitle = 20

    /// One line per row.
    func lines(_ rows: [ProgressRow], now: ContinuousClock.Instant = .now) -> [String] {
        let details = rows.map { detail($0, now: now) }
        let titleWidth = max(10, width - numberWidth - 2 - 2 - (details.first.map(DisplayWidth.of) ?? 0))
        let titles = Self.titles(rows.map { $0.item.entry.title.singleLine() }, width: titleWidth)
        return rows.indices.map { index in
            let number = rows[index].item.number.map(String.init) ?? "-"
            return DisplayWidth.pad(number, to: numberWidth, alignment: .right) + "  "
                + DisplayWidth.pad(titles[index], to: titleWidth, alignment: .left) + "  " + details[index]
        }
    }

    /// Which columns fit beside a title of at least `smallestTitle`.
    private enum Columns { case full, noSpeed, compact, least }

    private var columns: Columns {
        let room = width - numberWidth - 4 - Self.smallestTitle
        let full = Self.percentWidth + Self.amountWidth + Self.speedWidth + Self.stateWidth + 6
        if room >= full { return .full }
        if room >= full - Self.speedWidth - 2 { return .noSpeed }
        if room >= Self.percentWidth + Self.compactAmountWidth + Self.stateWidth + 4 { return .compact }
        return .least
    }

    /// The row's fixed-width columns.
    private func detail(_ row: ProgressRow, now: ContinuousClock.Instant) -> String {
        // A row that has received nothing shows only its size beside "waiting": zeros would read as progress.
        let waiting = !row.receiving && row.retry == nil
        let percent = waiting ? "" : row.percent.map { "\($0)%" } ?? ""
        let speed = row.speed(now: now)
        let state: String
        var speedText = speed.map { $0 > 0 ? ByteCount.text(Int64($0)) + "/s" : "" } ?? ""
        if let retry = row.retry {
            state = "retry in " + ProgressDisplay.seconds(retry.at - now)
            speedText = ""
        } else if !row.receiving {
            state = "waiting"
        } else if let stalled = row.stalled(now: now) {
            state = "stalled " + ProgressDisplay.seconds(stalled)
            speedText = ""
        } else if let speed, let total = row.total, total > row.bytes, let left = EpisodesRendering.timeLeft(bytes: total - row.bytes, speed: speed) {
            state = "ETA " + left
        } else {
            state = ""
        }
        let total = row.total.map(ByteCount.text) ?? ""
        let amount = waiting ? total : row.total == nil ? ByteCount.text(row.bytes) : "\(ByteCount.text(row.bytes)) of \(total)"
        let cells: [(String, Int)]
        switch columns {
        case .full: cells = [(percent, Self.percentWidth), (amount, Self.amountWidth), (speedText, Self.speedWidth), (state, Self.stateWidth)]
        case .noSpeed: cells = [(percent, Self.percentWidth), (amount, Self.amountWidth), (state, Self.stateWidth)]
        case .compact: cells = [(percent, Self.percentWidth), (waiting ? total : ByteCount.text(row.bytes), Self.compactAmountWidth), (state, Self.stateWidth)]
        case .least: cells = [(percent, Self.percentWidth), (state, Self.stateWidth)]
        }
        return cells.map { DisplayWidth.pad($0.0, to: $0.1, alignment: .right) }.joined(separator: "  ")
    }

    /// `titles` cut to `width`: from the end, except those that would then read the same as
    /// another, which keep their start and their end.
    static func titles(_ titles: [String], width: Int) -> [String] {
        let cut = titles.map { DisplayWidth.truncate($0, to: width) }
        return titles.indices.map { index in
            let clashes = cut[index] != titles[index] && cut.indices.contains { $0 != index && cut[$0] == cut[index] }
            return clashes ? DisplayWidth.truncateMiddle(titles[index], to: width) : cut[index]
        }
    }
}
