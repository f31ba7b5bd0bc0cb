import Foundation
import PodcastTestSupport

/// `podcast-demo-server [--port-file PATH]`: serves the demo catalogue, feed and audio on
/// 127.0.0.1 until SIGINT or SIGTERM. The port is printed on stdout (and written to PATH).
@main
struct DemoServer {
    static func main() throws {
        let arguments = CommandLine.arguments
        let portFile: String? = arguments.firstIndex(of: "--port-file").flatMap { index in
            index + 1 < arguments.count ? arguments[index + 1] : nil
        }

        // Block the stop signals before any thread starts, so sigwait below receives them.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let server = try LoopbackServer()
        let show = DemoShow(baseURL: server.baseURL)
        server.setRoute("/search", .handler { request in
            let music = (request.query ?? "").split(separator: "&").contains("media=music")
            let body = music ? show.musicSearchResults() : show.podcastSearchResults()
            return .fixed(body: Data(body.utf8), headers: [("Content-Type", "text/javascript; charset=utf-8")])
        })
        for (path, feed) in show.feeds {
            server.setRoute(path, .file(
                body: Data(feed.utf8), contentType: "application/rss+xml; charset=utf-8",
                etag: "\"v1:\(path)\"", lastModified: "Mon, 16 Nov 2026 08:00:00 GMT"))
        }
        for episode in DemoShow.episodes {
            // Paced like a slow podcast host, so the live progress display has something to show.
            server.setRoute(episode.path, .slow(
                body: Data(episode.audio), chunkSize: 48 * 1024, interval: .milliseconds(100),
                headers: [("Content-Type", "audio/wav"), ("ETag", "\"episode-\(episode.number)\"")]))
        }

        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        if let portFile {
            try String(server.port).write(toFile: portFile, atomically: true, encoding: .utf8)
        }

        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        server.stop()
    }
}
