import ArgumentParser
import PodcastKit

@main
struct Podcast: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podcast",
        abstract: "Find, list and download podcast episodes.",
        version: podcastVersion
    )
}
