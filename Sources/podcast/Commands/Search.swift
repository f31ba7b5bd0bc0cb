import ArgumentParser
import PodcastKit
import PodcastText

extension SearchMedia: ExpressibleByArgument {}

/// `podcast search <term>...`: find podcasts in a directory (iTunes, the Podcast Index, fyyd), or
/// songs in the iTunes catalogue.
struct Search: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search a directory (iTunes, Podcast Index, fyyd) for podcasts, or iTunes for songs with previews.",
        discussion: """
            The results are numbered; `podcast episodes N` lists the episodes of result N until the \
            next search, whichever directory it asked. With --media music, `podcast download N` \
            downloads song N's preview.

            --directory podcastindex asks the Podcast Index, with podcastindex-key and \
            podcastindex-secret from [search] of the configuration file (free at \
            https://api.podcastindex.org); --directory fyyd asks fyyd.de, which needs no key.

            Examples:
              podcast search swift programming
              podcast search --limit 5 --country GB history
              podcast search --media music --limit 3 miles davis
              podcast search --json hardcore history
              podcast search --directory fyyd chaosradio
            """
    )

    @Argument(help: "Words to search for.")
    var term: [String]

    @Option(help: "Show at most this many results (1 to 200).")
    var limit = SearchQuery.defaultLimit

    @Option(help: .setting("country", valueName: "code"))
    var country: String?

    @Option(help: "What to look for: podcast or music.")
    var media = SearchMedia.podcast

    @Option(help: ArgumentHelp(
        "Which directory to ask: \(SearchDirectories.names.joined(separator: ", ")).", valueName: "name"))
    var directory = ITunesCatalog.info.name

    @OptionGroup
    var output: OutputOptions

    func validate() throws {
        guard !joinedTerm.isEmpty else {
            throw ValidationError("the search term is empty; give at least one word, e.g. podcast search history")
        }
        guard SearchQuery.limitRange.contains(limit) else {
            let range = SearchQuery.limitRange
            throw ValidationError("--limit must be between \(range.lowerBound) and \(range.upperBound), not \(limit)")
        }
        try GivenSetting.validate(givenCountry)
        guard let chosen = SearchDirectories.named(directory) else {
            throw ValidationError("--directory must be one of \(SearchDirectories.names.joined(separator: ", ")), not \"\(directory)\"")
        }
        guard media == .podcast || chosen.info == ITunesCatalog.info else {
            throw ValidationError("--media music searches iTunes only; leave out --directory \(chosen.info.name), or search for podcasts")
        }
        // The file's country is every iTunes search's default, but a flag asks for this search.
        guard country == nil || chosen.info == ITunesCatalog.info else {
            throw ValidationError("--country chooses an iTunes store and \(chosen.info.title) has none; leave out --country or --directory \(chosen.info.name)")
        }
    }

    /// `--country`, when given.
    private var givenCountry: [GivenSetting] {
        country.map { [GivenSetting("country", text: $0)] } ?? []
    }

    private var joinedTerm: String {
        term.joined(separator: " ").singleLine()
    }

    func run() throws {
        let context = try CommandContext.current()
        let query = SearchQuery(
            term: joinedTerm, media: media,
            country: try context.settings(givenCountry).settings.country, limit: limit)
        // `validate` has checked the name.
        let chosen = SearchDirectories.named(directory) ?? ITunesCatalog.self
        let outcome = try context.directory(chosen).search(query)

        // Remember the numbers before showing them, so every number on screen already works.
        let store = try context.openStore()
        try store.transaction {
            try store.lastSearch.replace(with: outcome)
            if media == .music {
                try store.currentListing.replace(with: outcome.previewListing)
            }
        }

        let rendering = SearchRendering(outcome: outcome)
        if output.json {
            context.console.print(rendering.json.serialized(pretty: context.console.stdoutIsTerminal))
        } else if !outcome.results.isEmpty {
            let table = rendering.table.render(width: context.console.outputWidth)
            for line in table.lines {
                context.console.print(line)
            }
            for column in table.droppedColumns {
                context.console.hint("(\(column) column left out to fit the terminal: widen it, or use --json)")
            }
        }
        for note in rendering.notes {
            context.console.note(note)
        }
        if let hint = rendering.nextStep, !output.json {
            context.console.hint(hint)
        }
    }
}
