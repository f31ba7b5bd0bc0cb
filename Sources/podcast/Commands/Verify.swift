import ArgumentParser
import PodcastKit
import PodcastText

/// `podcast verify [<selection>...]`: check finished files against their recorded size and digest.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check downloaded files against the size and SHA-256 podcast recorded when it wrote them.",
        discussion: """
            Without <selection>, every episode podcast downloaded is checked; with one (3, 1-5, \
            all… over the last listing), those. A damaged or missing episode is marked so that \
            podcast resume (or podcast download N) fetches it again. A damaged file is no longer \
            the file podcast wrote, so podcast never deletes or overwrites it: the fresh copy takes \
            a free name beside it (Title (2).mp3), and the damaged one is yours to remove. A missing \
            companion file is fetched again by the next podcast download of its episode; a damaged \
            one is left as it is. Exit code 1 when any file is damaged or missing.

            Examples:
              podcast verify
              podcast verify 1-5
            """
    )

    @Argument(help: "Which episodes (default: every one downloaded): 3, 1-5, 6-, 2,4,9, all.")
    var selection: [String] = []

    @OptionGroup
    var filters: SelectionFilterOptions

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        if !selection.isEmpty { try Selection.validateArgument(selection) }
    }

    func run() throws {
        let context = try CommandContext.current()
        let store = try context.openStore()
        var records = try store.downloads.all()
        if !selection.isEmpty {
            guard let listing = try store.currentListing.load() else {
                throw UsageError("there is no listing to verify from; run podcast episodes <feed> first, or give no selection")
            }
            let keys = Set(try listing.selectedItems(selection, filter: filters.filter, records: try store.downloads.records(feed: listing.source.feedKey))
                .map(\.key))
            records = records.filter { keys.contains($0.key) }
        }
        let findings = try LibraryCheck(store: store).run(records) { finding in
            guard !finding.verdict.isGood else { return }
            context.console.message("\(LibraryCheck.describe(finding.verdict)): \(finding.path) (\(finding.title))")
        }
        if output.json {
            context.console.print(JSONValue.object([
                ("files", .array(findings.map { finding in
                    .object([
                        ("path", .string(finding.path)), ("title", .string(finding.title)),
                        ("kind", .string(finding.isMedia ? "media" : "companion")), ("state", .string(Self.state(finding.verdict))),
                        ("error", .string(finding.verdict.isGood ? nil : LibraryCheck.describe(finding.verdict))),
                    ])
                })),
            ]).serialized(pretty: context.console.stdoutIsTerminal))
        }
        let bad = findings.filter { !$0.verdict.isGood }
        let media = bad.filter(\.isMedia).count
        context.console.message("checked \(Plural.count(findings.count, "file")): \(findings.count - bad.count) intact, "
            + "\(bad.filter { $0.verdict == .missing }.count) missing, \(bad.filter { $0.verdict != .missing }.count) damaged"
            + (media > 0 ? "; podcast resume fetches the \(Plural.count(media, "episode")) again, beside any damaged copy" : ""))
        if !bad.isEmpty { throw ExitCode(ExitStatus.operationFailed) }
    }

    /// The JSON word for a verdict.
    private static func state(_ verdict: LibraryCheck.Verdict) -> String {
        switch verdict {
        case .intact: "intact"
        case .sizeOnly: "size-checked"
        case .missing: "missing"
        case .damaged: "damaged"
        }
    }
}
