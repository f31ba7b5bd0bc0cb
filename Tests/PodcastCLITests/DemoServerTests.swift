import Foundation
import PodcastTestSupport
import Testing

/// The `make demo` server works: podcast finds the demo show, and every URL it advertises is served.
@Suite(.timeLimit(.minutes(5))) struct DemoServerTests {
    @Test func demoCatalogueLeadsToServedFeedsAndAudio() async throws {
        let directory = try TemporaryDirectory(prefix: "demo-server")
        let portFile = directory.path("port")
        let server = try ChildProcess(builtExecutable(named: "podcast-demo-server"), ["--port-file", portFile])
        defer { kill(server.pid, SIGTERM) }
        guard let port = try await waitForPort(in: portFile) else {
            kill(server.pid, SIGTERM)
            let ended = await server.finish(within: .seconds(10))
            Issue.record("the demo server wrote no port within 60 s (status \(ended.status), stderr: \(ended.stderr))")
            return
        }
        let podcast = try PodcastBinary(environment: ["PODCAST_ITUNES_URL": "http://127.0.0.1:\(port)"])

        let search = try await podcast.run(["search", "--json", "tones"])
        #expect(search.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any])
        let results = try #require(document["results"] as? [[String: Any]])
        #expect(results.first?["name"] as? String == "Tones & Overtones")
        let feeds = results.compactMap { $0["feed_url"] as? String }
        #expect(feeds.count == 2)

        let episodes = try await podcast.run(["episodes", "1"])
        #expect(episodes.status == 0)
        #expect(episodes.stdout.split(separator: "\n").count == 4)
        #expect(episodes.stdout.contains("Ünïcode in Titles — 音"))
        #expect(try await podcast.run(["episodes", "2"]).status == 0)

        let music = try await podcast.run(["search", "--json", "--media", "music", "sine"])
        let songs = try #require(try JSONSerialization.jsonObject(with: Data(music.stdout.utf8)) as? [String: Any])
        let previews = try #require(songs["results"] as? [[String: Any]]).compactMap { $0["preview_url"] as? String }
        #expect(previews.count == 3)

        // Every advertised URL answers 200 with content of the right kind.
        for url in feeds + previews {
            let fetched = try await ChildProcess(URL(filePath: "/usr/bin/curl"), ["-sf", "-o", "/dev/null", "-w", "%{content_type}", url]).finish()
            #expect(fetched.status == 0, "\(url)")
            #expect(fetched.stdout.hasPrefix(url.hasSuffix(".wav") ? "audio/wav" : "application/rss+xml"), "\(url)")
        }
        kill(server.pid, SIGTERM)
        let stopped = await server.finish(within: .seconds(10))
        #expect(!stopped.timedOut)
        #expect(stopped.status == 0)
    }

    @Test func theCatalogueCountsTheEpisodesItsFeedsHave() async throws {
        let directory = try TemporaryDirectory(prefix: "demo-server")
        let portFile = directory.path("port")
        let server = try ChildProcess(builtExecutable(named: "podcast-demo-server"), ["--port-file", portFile])
        defer { kill(server.pid, SIGTERM) }
        let port = try #require(try await waitForPort(in: portFile), "the demo server wrote no port within 60 s")
        let podcast = try PodcastBinary(environment: ["PODCAST_ITUNES_URL": "http://127.0.0.1:\(port)"])

        let search = try await podcast.run(["search", "--json", "tones"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any])
        let results = try #require(document["results"] as? [[String: Any]])
        var compared = 0
        for result in results where result["feed_url"] is String {
            let number = try #require(result["number"] as? Int)
            let listed = try await podcast.run(["episodes", "\(number)", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let feed = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
            let episodes = try #require(feed["episodes"] as? [[String: Any]])
            #expect(result["episode_count"] as? Int == episodes.count, "\(result["name"] ?? "")")
            compared += 1
        }
        #expect(compared == 2)
    }

    /// The port the server wrote, once it has; nil when it has not within 60 s (it writes it
    /// within a second, but a machine busy with the rest of the suite can start it slowly).
    private func waitForPort(in path: String) async throws -> Int? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), let port = Int(text) {
                return port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
