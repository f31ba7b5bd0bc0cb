import Foundation
import PodcastKit
import PodcastTestSupport
import PodcastText
import Testing

/// The live displays on a pseudo-terminal: `download` and `status --watch` fit the terminal,
/// keep their columns, redraw after a resize and give the cursor back on Ctrl-Z.
@Suite(.timeLimit(.minutes(5))) struct TerminalDisplayTests {
    /// Twelve episodes that each send 20,000 bytes and then stall (the default stall timeout is a
    /// minute, longer than any test here), listed in a fresh home.
    private func stalledShow() async throws -> (LoopbackServer, PodcastBinary, [BackgroundScenario.Episode]) {
        let server = try LoopbackServer()
        let episodes = BackgroundScenario.show(count: 12, size: 200_000, on: server)
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        return (server, podcast, episodes)
    }

    @Test func downloadFitsASmallTerminalWithFixedColumnsAndWaitingRows() async throws {
        let (server, podcast, _) = try await stalledShow()
        let session = try TerminalScenario.start(podcast, ["download", "all", "--concurrency", "10"], rows: 10, columns: 60)
        // Two episodes receive (two connections per host); the other eight wait for one.
        let full = { (frame: [String]) in frame.count == 9 && frame.filter { $0.hasSuffix("waiting") }.count == 6 }
        let drawn = await session.wait { TerminalScenario.frames(in: $0).contains(where: full) }
        #expect(drawn, "\(session.text)")
        let frame = try #require(TerminalScenario.frames(in: session.text).last(where: full))
        // 10 rows, "2 more queued": cut to the 9 lines above the cursor's.
        #expect(frame.count == 9)
        #expect(frame.last == "+2 more running, 2 queued")
        #expect(frame.allSatisfy { DisplayWidth.of($0) <= 59 })
        for line in frame.dropLast() {
            #expect(DisplayWidth.of(line) == 59, "\(line)")
        }
        for line in frame where line.hasSuffix("waiting") {
            let number = try #require(Int(line.prefix(2).trimmingCharacters(in: .whitespaces)))
            let title = "Background \(13 - number)"
            #expect(line == String(format: "%2d", number) + "  " + title.padding(toLength: 24, withPad: " ", startingAt: 0)
                + "  " + "    " + "  " + "195.3 KiB" + "  " + "     waiting")
        }
        session.signal(SIGINT)
        #expect(await session.finish() == 130)
        _ = server
    }

    @Test func statusWatchFitsTheTerminalAndIsRedrawnWholeAfterAResize() async throws {
        let (server, podcast, _) = try await stalledShow()
        let guardian = WorkerGuard(podcast)
        #expect(try await podcast.run(["download", "all", "--background", "--concurrency", "10"]).status == 0)
        let session = try TerminalScenario.start(podcast, ["status", "--watch"], rows: 20, columns: 100)
        let tall = await session.wait { TerminalScenario.frames(in: $0).contains { $0.count == 15 } }
        #expect(tall, "\(session.text)")
        let before = TerminalScenario.frames(in: session.text).count

        session.resize(rows: 10, columns: 60)
        let small = await session.wait { text in
            TerminalScenario.frames(in: text).dropFirst(before).contains { $0.count == 9 }
        }
        #expect(small, "\(session.text)")
        let frame = try #require(TerminalScenario.frames(in: session.text).dropFirst(before).first { $0.count == 9 })
        #expect(frame.first?.hasPrefix("worker: running (pid ") == true)
        #expect(frame[1].hasPrefix(" #  State"), "\(frame)")
        #expect(frame[7] == "+7 more; podcast status lists them all")
        #expect(frame[8] == "batch 1 open: 0 of 12 episodes settled")
        #expect(frame.allSatisfy { DisplayWidth.of($0) <= 59 })
        // The old frame's 15 lines, up to 99 columns, take more rows at 60 columns than the
        // screen has: the redraw starts from the top of the screen's last 9 lines.
        let start = try #require(TerminalScenario.frameStarts(in: session.text).dropFirst(before).first)
        #expect(start.hasSuffix("\r\u{1B}[9F"), "\(start.debugDescription)")
        session.signal(SIGINT)
        #expect(await session.finish() == 130)
        _ = (server, guardian)
    }

    @Test func titlesThatShareTheirStartAreShortenedFromTheMiddle() async throws {
        let server = try LoopbackServer()
        let titles = ["The Long Conversation About Everything, part 1", "The Long Conversation About Everything, part 2"]
        ResumeScenario.serveFeed(titles.enumerated().map { ResumeScenario.Episode(title: $1, path: "/media/t\($0).mp3", length: 200_000) }, on: server)
        for index in titles.indices {
            server.setRoute("/media/t\(index).mp3", .stall(afterBytes: 20_000, body: Data(count: 200_000)))
        }
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let session = try TerminalScenario.start(podcast, ["download", "all"], rows: 10, columns: 60)
        let both = { (frame: [String]) in frame.count == 2 }
        #expect(await session.wait { TerminalScenario.frames(in: $0).contains(where: both) })
        let frame = try #require(TerminalScenario.frames(in: session.text).last(where: both))
        let shortened = titles.map { DisplayWidth.truncateMiddle($0, to: 25) }
        #expect(shortened == ["The Long…erything, part 1", "The Long…erything, part 2"])
        #expect(frame.map { String($0.dropFirst(3).prefix(25)) } == shortened.reversed(), "\(frame)")
        session.signal(SIGINT)
        #expect(await session.finish() == 130)
    }

    @Test func aTransferThatGainsNothingSaysSinceWhenItStalled() async throws {
        let (server, podcast, _) = try await stalledShow()
        let session = try TerminalScenario.start(podcast, ["download", "1"], rows: 10, columns: 100)
        let stalled = { (frame: [String]) in frame.count == 1 && frame[0].hasSuffix("  stalled 6 s") }
        #expect(await session.wait(upTo: .seconds(60)) { TerminalScenario.frames(in: $0).contains(where: stalled) })
        let line = try #require(TerminalScenario.frames(in: session.text).first(where: stalled)?.first)
        // No speed and no time left beside it: 19.5 KiB of 195.3 KiB, then the stall.
        #expect(line == "1  " + "Background 12".padding(toLength: 39, withPad: " ", startingAt: 0)
            + "   10%   19.5 KiB of 195.3 KiB  " + String(repeating: " ", count: 11) + "   stalled 6 s")
        session.signal(SIGINT)
        #expect(await session.finish() == 130)
        _ = server
    }

    @Test func aSteadyCapReadsAsASteadySpeed() async throws {
        let server = try LoopbackServer()
        ResumeScenario.serveFeed([ResumeScenario.Episode(title: "Capped", path: "/media/c.mp3", length: 240_000)], on: server)
        server.setRoute("/media/c.mp3", .fixed(body: Data(repeating: 5, count: 240_000)))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let session = try TerminalScenario.start(podcast, ["download", "1", "--limit-rate", "40k"], rows: 10, columns: 100)
        #expect(await session.finish() == 0)
        // Past the first 40%, every speed shown is the cap's, give or take a quarter.
        let speeds = TerminalScenario.frames(in: session.text).compactMap { frame -> Double? in
            guard let line = frame.first, let percent = line.firstMatch(of: #/ (\d+)% /#), let value = Int(percent.output.1), value >= 40,
                let speed = line.firstMatch(of: #/([\d.]+) KiB\/s/#)
            else { return nil }
            return Double(speed.output.1)
        }
        #expect(!speeds.isEmpty, "\(session.text.debugDescription)")
        #expect(speeds.allSatisfy { (30...50).contains($0) }, "\(speeds)")
    }

    @Test func ctrlZGivesTheCursorBackAndFgRedraws() async throws {
        let (server, podcast, _) = try await stalledShow()
        let session = try TerminalScenario.start(podcast, ["download", "1"], rows: 10, columns: 80)
        #expect(await session.wait { !TerminalScenario.frames(in: $0).isEmpty })
        let drawn = session.bytes.count
        session.signal(SIGTSTP)
        let stopped = await session.wait { _ in TerminalScenario.processState(session.pid) == "T" }
        #expect(stopped)
        // What it wrote before stopping may reach the terminal's reader just after the stop is seen.
        let shown = await session.wait(upTo: .seconds(10)) { _ in String(decoding: session.bytes[drawn...], as: UTF8.self).hasSuffix("\u{1B}[?25h") }
        let whileStopped = String(decoding: session.bytes[drawn...], as: UTF8.self)
        #expect(shown, "\(whileStopped.debugDescription)")

        let resumedAt = session.bytes.count
        session.signal(SIGCONT)
        let redrawn = await session.wait { _ in
            let after = String(decoding: session.bytes[resumedAt...], as: UTF8.self)
            return after.hasPrefix("\u{1B}[?25l\u{1B}[2K") && !TerminalScenario.frames(in: after).isEmpty
        }
        #expect(redrawn, "\(String(decoding: session.bytes[resumedAt...], as: UTF8.self).debugDescription)")
        session.signal(SIGINT)
        #expect(await session.finish() == 130)
        #expect(session.text.hasSuffix("\u{1B}[?25h") || session.text.contains("\u{1B}[?25h"))
        _ = server
    }

    @Test func aDumbTerminalGetsPlainLinesWithoutEscapes() async throws {
        let server = try LoopbackServer()
        Self.serveOne(on: server)
        let podcast = try PodcastBinary()
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let session = try TerminalScenario.start(podcast, ["download", "1"], rows: 10, columns: 80, environment: ["TERM": "dumb"])
        #expect(await session.finish() == 0)
        #expect(!session.text.contains("\u{1B}"), "\(session.text.debugDescription)")
        #expect(session.text.contains("downloading episode 1 (Plain)\n"))
        #expect(session.text.contains("downloaded episode 1 (Plain): 9.8 KiB → "))
    }

    @Test func aTerminalReportingNoColumnsUsesColumns() async throws {
        let (server, podcast, _) = try await stalledShow()
        let session = try TerminalScenario.start(podcast, ["download", "1"], rows: 10, columns: 0, environment: ["COLUMNS": "100"])
        #expect(await session.wait { !TerminalScenario.frames(in: $0).isEmpty })
        let frame = try #require(TerminalScenario.frames(in: session.text).first)
        #expect(frame.map(DisplayWidth.of) == [99], "\(frame)")
        session.signal(SIGINT)
        #expect(await session.finish() == 130)
        _ = server
    }

    @Test func errorsAreRedOnAColourTerminalUnlessColourIsOff() async throws {
        let podcast = try PodcastBinary()
        let red = try TerminalScenario.start(podcast, ["episodes", "itunes:abc"], rows: 10, columns: 80)
        #expect(await red.finish() == 64)
        #expect(red.text.hasPrefix("\u{1B}[31merror:\u{1B}[0m itunes:abc needs a numeric id"), "\(red.text.debugDescription)")

        for environment in [["NO_COLOR": "1"], ["TERM": "dumb"]] {
            let plain = try TerminalScenario.start(podcast, ["episodes", "itunes:abc"], rows: 10, columns: 80, environment: environment)
            #expect(await plain.finish() == 64)
            #expect(plain.text.hasPrefix("error: itunes:abc"), "\(environment): \(plain.text.debugDescription)")
        }
        let never = try TerminalScenario.start(podcast, ["episodes", "itunes:abc", "--color", "never"], rows: 10, columns: 80)
        #expect(await never.finish() == 64)
        #expect(never.text.hasPrefix("error: itunes:abc"))

        let always = try await podcast.run(["episodes", "itunes:abc", "--color", "always"])
        #expect(always.stderr.hasPrefix("\u{1B}[31merror:\u{1B}[0m "))
        let piped = try await podcast.run(["episodes", "itunes:abc"])
        #expect(piped.stderr.hasPrefix("error: "))
    }

    @Test func finishedDownloadsAreGreenAndWarningsYellowWhenColourIsAsked() async throws {
        let server = try LoopbackServer()
        Self.serveOne(on: server)
        let podcast = try PodcastBinary()
        try "unknown-setting = 1\n".write(toFile: podcast.configFile, atomically: true, encoding: .utf8)
        #expect(try await podcast.run(["episodes", server.url("/feed.xml")]).status == 0)
        let result = try await podcast.run(["download", "1", "--color", "always"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("\u{1B}[33mwarning:\u{1B}[0m \(podcast.configFile):1: unknown-setting"))
        #expect(result.stderr.contains("\u{1B}[32mdownloaded\u{1B}[0m episode 1 (Plain)"))
    }

    /// The lines a command wrote to the terminal (which ends each with CR LF).
    private static func lines(of session: TerminalSession) -> [String] {
        session.text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    }

    @Test func statusGivesTheTitleTheRoomOfEmptyColumnsAndSaysWhyADownloadFailedUnderIt() async throws {
        let server = try LoopbackServer()
        let title = "The Tides, the Moon and Others"
        ResumeScenario.serveFeed([ResumeScenario.Episode(title: title, path: "/media/gone.mp3", length: 100_000)], on: server)
        server.setRoute("/media/gone.mp3", .status(404))
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        #expect(try await podcast.run(["download", "1"]).status == 1)

        let session = try TerminalScenario.start(podcast, ["status"], rows: 24, columns: 80)
        #expect(await session.finish() == 0)
        let lines = Self.lines(of: session)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 80 }, "\(lines)")
        // No speed nor time left for a failed download: those columns give their room to the title.
        let header = try #require(lines.first { $0.hasPrefix("#  State") }, "\(lines)")
        #expect(!header.contains("Speed") && !header.contains("ETA"), "\(header)")
        let row = try #require(lines.firstIndex { $0.hasPrefix("1  failed") }, "\(lines)")
        #expect(lines[row].hasSuffix("Resume Show  " + title), "\(lines[row])")
        // Why it failed, in the lines under it, from the State column on, wrapped to the width.
        let reason = lines[(row + 1)...].prefix { $0.hasPrefix("   ") && !$0.hasPrefix("    ") }
        #expect(!reason.isEmpty, "\(lines)")
        #expect(reason.map { $0.dropFirst(3) }.joined(separator: " ").hasPrefix("server answered 404 Not Found for \(server.url("/media/gone.mp3"))"), "\(lines)")
    }

    @Test func statusWatchWithNothingToWatchSaysSoOnATerminal() async throws {
        let podcast = try PodcastBinary()
        let session = try TerminalScenario.start(podcast, ["status", "--watch"], rows: 10, columns: 80)
        #expect(await session.finish(within: .seconds(20)) == 0)
        #expect(Self.lines(of: session).contains("nothing to watch: no download is queued or running"), "\(session.text.debugDescription)")
    }

    /// Under a cap, a transfer the server has answered but the cap holds back is downloading,
    /// not waiting (which is for those not started), and the transfers share the cap, each
    /// showing its speed, rather than the first to ask taking all of it.
    @Test func transfersTheCapHoldsBackShowAsDownloadingWithTheirSpeeds() async throws {
        let server = try LoopbackServer()
        let bodies = [ResumeScenario.media(seed: 41, size: 300_000), ResumeScenario.media(seed: 42, size: 300_000)]
        ResumeScenario.serveFeed(bodies.indices.map { ResumeScenario.Episode(title: "Capped \($0 + 1)", path: "/media/c\($0).mp3", length: 300_000) }, on: server)
        for (index, body) in bodies.enumerated() {
            server.setRoute("/media/c\(index).mp3", .fixed(body: body, headers: [("Content-Type", "audio/mpeg")]))
        }
        let podcast = try await ResumeScenario.listedHome(feedURL: server.url("/feed.xml"))
        let session = try TerminalScenario.start(podcast, ["download", "all", "--limit-rate", "100k"], rows: 10, columns: 100)
        #expect(await session.finish() == 0)
        let both = TerminalScenario.frames(in: session.text).filter { $0.count == 2 && $0.allSatisfy { $0.hasPrefix("1  ") || $0.hasPrefix("2  ") } }
        #expect(!both.isEmpty, "\(session.text.debugDescription)")
        // Both requests go out at once and are answered at once: neither row waits beside the other.
        let waitingBesideAnother = both.filter { frame in frame.contains { $0.hasSuffix("waiting") } && frame.contains { !$0.hasSuffix("waiting") } }
        #expect(waitingBesideAnother.isEmpty, "\(waitingBesideAnother)")
        #expect(both.contains { frame in frame.allSatisfy { $0.contains("KiB/s") } }, "\(both)")
        #expect(!both.joined().contains { $0.contains("stalled") }, "\(both)")
    }

    static func serveOne(on server: LoopbackServer) {
        server.setRoute("/feed.xml", .fixed(body: Data("""
            <rss><channel><title>Plain Show</title><item><title>Plain</title><guid>p-1</guid>
            <pubDate>Tue, 10 Nov 2026 08:00:00 GMT</pubDate>
            <enclosure url="/media/plain.mp3" length="10000" type="audio/mpeg"/></item></channel></rss>
            """.utf8)))
        server.setRoute("/media/plain.mp3", .fixed(body: Data(repeating: 3, count: 10000), headers: [("Content-Type", "audio/mpeg")]))
    }
}
