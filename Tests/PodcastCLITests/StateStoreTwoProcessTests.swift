import Foundation
import PodcastTestSupport
import Testing

/// The state store shared by separate processes, driven through `podcast-store-probe`.
@Suite(.timeLimit(.minutes(5))) struct StateStoreTwoProcessTests {
    @Test func readerSeesOnlyWholeSearchesWhileWriterReplacesThem() async throws {
        try await withNewDatabase { database in
            // The writer starts only once the reader has read once, and the reader reads until it
            // has seen the writer's last search: the two certainly overlap.
            let startFile = database + ".start"
            let reading = try probe(["read", database, "1500", startFile])
            let writing = try probe(["write", database, "1500", startFile])
            let writer = await writing.finish(within: .seconds(120))
            let reader = await reading.finish(within: .seconds(120))

            #expect(writer.status == 0 && !writer.timedOut, "writer: \(writer.stderr)")
            #expect(reader.status == 0 && !reader.timedOut, "reader: \(reader.stderr)")
            let distinct = try #require(distinctSnapshots(in: reader.stdout), "reader printed: \(reader.stdout)")
            #expect(distinct >= 1)
        }
    }

    @Test func twoProcessesCreatingTheSameNewStoreBothSucceed() async throws {
        // A smoke test: the opens overlap in some rounds, not provably in all; several rounds on
        // fresh files make an overlap likely.
        for _ in 1...5 {
            try await withNewDatabase { database in
                let firstProcess = try probe(["write", database, "1"])
                let secondProcess = try probe(["write", database, "1"])
                let first = await firstProcess.finish()
                let second = await secondProcess.finish()

                #expect(first.status == 0 && !first.timedOut, "first: \(first.stderr)")
                #expect(second.status == 0 && !second.timedOut, "second: \(second.stderr)")
                let check = try await probe(["read", database, "1"]).finish()
                #expect(check.status == 0, "check: \(check.stderr)")
                #expect(distinctSnapshots(in: check.stdout) == 1)
            }
        }
    }
}

/// Starts `podcast-store-probe arguments…`.
private func probe(_ arguments: [String]) throws -> ChildProcess {
    try ChildProcess(builtExecutable(named: "podcast-store-probe"), arguments)
}

/// The number in the reader's final line `read N snapshots, D distinct`.
private func distinctSnapshots(in output: String) -> Int? {
    let words = output.split(whereSeparator: \.isWhitespace)
    guard let index = words.firstIndex(of: "distinct"), index > words.startIndex else { return nil }
    return Int(words[words.index(before: index)])
}

/// Runs `body` with the path of a database that does not exist yet, in a new temporary directory.
private func withNewDatabase(_ body: (String) async throws -> Void) async throws {
    let directory = try TemporaryDirectory(prefix: "StateStoreTwoProcessTests")
    try await body(directory.path("state.sqlite"))
}
