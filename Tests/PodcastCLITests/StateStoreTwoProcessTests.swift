import Foundation
import Testing

/// The state store shared by separate processes, driven through `podcast-store-probe`.
@Suite struct StateStoreTwoProcessTests {
    @Test func readerSeesOnlyWholeSearchesWhileWriterReplacesThem() async throws {
        try await withNewDatabase { database in
            let writer = try ProbeRun(["write", database, "1500"])
            let reader = try ProbeRun(["read", database, "3000"])
            try await waitForExit([writer, reader], timeout: .seconds(120))

            #expect(writer.status == 0, "writer: \(writer.errors)")
            #expect(reader.status == 0, "reader: \(reader.errors)")
            let distinct = try #require(distinctSnapshots(in: reader.output), "reader printed: \(reader.output)")
            // One distinct search would mean the reader ran entirely before or after the writer.
            #expect(distinct > 1)
        }
    }

    @Test func twoProcessesCreatingTheSameNewStoreBothSucceed() async throws {
        // Several rounds, each on a fresh file, because the collision only happens when the opens overlap.
        for _ in 1...5 {
            try await withNewDatabase { database in
                let first = try ProbeRun(["write", database, "1"])
                let second = try ProbeRun(["write", database, "1"])
                try await waitForExit([first, second], timeout: .seconds(60))

                #expect(first.status == 0, "first: \(first.errors)")
                #expect(second.status == 0, "second: \(second.errors)")
                let check = try ProbeRun(["read", database, "1"])
                try await waitForExit([check], timeout: .seconds(60))
                #expect(check.status == 0, "check: \(check.errors)")
                #expect(distinctSnapshots(in: check.output) == 1)
            }
        }
    }
}

/// One `podcast-store-probe` process, started at creation, with its output captured.
private final class ProbeRun {
    let process = Process()
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = builtExecutable(named: "podcast-store-probe")
        process.arguments = arguments
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
    }

    /// The exit status; only meaningful once the process has ended.
    var status: Int32 { process.terminationStatus }
    /// What the process wrote to standard output, once `collectOutput()` has run.
    private(set) var output = ""
    /// What the process wrote to standard error, once `collectOutput()` has run.
    private(set) var errors = ""

    /// Reads both pipes to their end; called after the process ended (the probe writes a line or two,
    /// far less than a pipe holds, so it never blocks waiting for us).
    func collectOutput() {
        output = String(decoding: outputPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        errors = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}

/// Waits for every run to end and collects its output; a run still going at the deadline is killed
/// and the test fails, so a deadlocked probe can never hang the test run.
private func waitForExit(_ runs: [ProbeRun], timeout: Duration) async throws {
    let deadline = ContinuousClock.now + timeout
    while runs.contains(where: { $0.process.isRunning }), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
    }
    for run in runs where run.process.isRunning {
        Issue.record("podcast-store-probe \(run.process.arguments ?? []) still running after \(timeout); killed it")
        run.process.terminate()
    }
    for run in runs {
        run.process.waitUntilExit()
        run.collectOutput()
    }
}

/// The number in the reader's final line `read N snapshots, D distinct`.
private func distinctSnapshots(in output: String) -> Int? {
    let words = output.split(whereSeparator: \.isWhitespace)
    guard let index = words.firstIndex(of: "distinct"), index > words.startIndex else { return nil }
    return Int(words[words.index(before: index)])
}

/// Runs `body` with the path of a database that does not exist yet, in a new temporary directory
/// that is removed afterwards.
private func withNewDatabase(_ body: (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("StateStoreTwoProcessTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory.appendingPathComponent("state.sqlite").path)
}
