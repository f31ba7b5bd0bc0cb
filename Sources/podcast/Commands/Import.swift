import ArgumentParser
import FoundationEssentials
import PodcastHTTP
import PodcastKit
import PodcastPlatform
import PodcastText

/// `podcast import <file.opml>`: subscribe to every feed an OPML file lists, without fetching them.
struct Import: ParsableCommand, OutputConfigured {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Subscribe to every feed of an OPML file (as podcast apps export them).",
        discussion: """
            Every outline with an xmlUrl is a feed, at any depth of the file (categories are \
            flattened). Nothing is fetched now (but the iTunes lookup of an Apple Podcasts or \
            Overcast link, which stands for its feed): the first podcast update sets each feed's baseline, \
            of which it downloads the newest --first (default 1). An entry that is a show's web page \
            is followed by its first update to the feed the page names, with a note. Feeds already subscribed are \
            counted, not added twice; the settings options apply to every feed of the file. A \
            feed address without its scheme (feeds.example.com/rss) is taken as https, with a note.

            Examples:
              podcast import antennapod-backup.opml
              podcast import subscriptions.opml --first 0 --keep 10
            """
    )

    @Argument(help: "The OPML file.", completion: .file(extensions: ["opml", "xml"]))
    var file: String

    @OptionGroup
    var settings: SubscriptionOptions

    @OptionGroup
    var output: OutputOptions

    func run() throws {
        // A web address here is most likely a feed to subscribe to, or a list to fetch first:
        // import reads files only, and the file system's "No such file" would not say so.
        if HTTPClient.isHTTP(file) {
            throw UsageError(
                "import reads an OPML file, and \(file) is a web address; to subscribe to the feed there, run "
                    + "podcast subscribe \(file); to import a list from there, save it first: "
                    + "curl -o subscriptions.opml \(file) && podcast import subscriptions.opml")
        }
        let context = try CommandContext.current()
        let named = file.lowercased().hasPrefix("file://") ? try FeedSource.path(ofFileURL: file) : file
        let path = TransferOptions.absolute(named, environment: context.environment)
        var bytes: [UInt8] = []
        do {
            try FileIO.read(path) { piece in
                bytes.append(contentsOf: piece)
                return bytes.count <= OPMLReader.maxBytes
            }
        } catch {
            throw UsageError("cannot read the OPML file \(file): \(error.reason); check the path")
        }
        let document = try OPMLReader.read(bytes, documentURL: URL(filePath: path).absoluteString, source: file)
        let store = try context.openStore()
        let change = try settings.change(environment: context.environment)
        let lookup = document.outlines.contains { FeedLink.appleID(in: $0.feedURL) != nil } ? try context.itunesCatalog() : nil
        var rows: [SubscribeRendering.Row] = []
        var resolved: [String] = []
        var unresolved: [String] = []
        for outline in document.outlines {
            var feedURL = outline.feedURL
            // An Apple Podcasts or Overcast link names its feed only through the iTunes lookup
            // (the one request import makes); any other address is subscribed as written.
            if let lookup, let id = FeedLink.appleID(in: outline.feedURL) {
                do {
                    feedURL = try lookup.feedURL(ofPodcast: id, link: outline.feedURL)
                    resolved.append(FeedResolution(link: outline.feedURL, feeds: [feedURL], chosen: feedURL, way: .appleLookup(id: id)).note)
                } catch {
                    unresolved.append("\(error)")
                    continue
                }
            }
            let (subscription, status) = try store.subscriptions.subscribe(
                url: FeedAddress.normalized(feedURL), title: outline.title ?? feedURL, htmlURL: outline.htmlURL, change: change)
            rows.append(SubscribeRendering.Row(title: subscription.title, url: subscription.url, status: status, episodes: 0, new: 0))
        }
        let rendering = SubscribeRendering(rows: rows, subscriptions: try store.subscriptions.all())
        if output.json { rendering.report(json: true, console: context.console) }
        for outline in document.schemeless {
            let written = outline.feedURL.dropFirst("https://".count)
            context.console.note(
                "\(file): \(outline.title.map { "\"\($0)\"" } ?? "an outline") gives its feed as \(written), without a scheme; "
                    + "subscribed to \(outline.feedURL) (for http, subscribe to http://\(written) instead)")
        }
        for note in resolved { context.console.note("\(file): \(note)") }
        for failure in unresolved { context.console.warning("\(file): \(failure.singleLine()); skipped") }
        for skipped in document.skipped {
            context.console.warning("\(file): \(skipped) is not an http(s) feed address; skipped")
        }
        for refused in document.refused {
            let shown = refused.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
            context.console.warning("\(file): the feed address \(shown) has a control character in it (a line break or a tab); skipped, fix the file")
        }
        if document.duplicates > 0 {
            context.console.note("\(file) lists \(Plural.count(document.duplicates, "feed")) more than once; each is subscribed once")
        }
        let count = { (status: SubscribeRendering.Row.Status) in rows.count { $0.status == status } }
        context.console.message(
            "imported \(file): \(count(.added)) added, \(count(.exists)) already subscribed, \(count(.changed)) changed; "
                + (count(.added) > 0 ? "podcast update fetches them" : "nothing new"))
    }
}
