import ArgumentParser
import FoundationEssentials
import Glibc
import PodcastKit

/// `podcast export`: the subscriptions as OPML 2.0, for another podcast app or a backup.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the subscriptions as OPML 2.0 on stdout (gPodder, AntennaPod and others import it).",
        discussion: """
            Examples:
              podcast export > subscriptions.opml
            """
    )

    func run() throws {
        let context = try CommandContext.current()
        let subscriptions = try context.openStore().subscriptions.all()
        let outlines = subscriptions.map { OPMLOutline(title: $0.title, feedURL: $0.url, htmlURL: $0.htmlURL) }
        // The user's own file: the feeds' URLs as subscribed, credentials included, to import again.
        Console.writeUsersDocument(OPMLWriter.document(title: "podcast subscriptions", outlines: outlines, created: Date()))
        if subscriptions.isEmpty { context.console.note("there are no subscriptions; the document lists none") }
    }
}
