import Foundation
import Synchronization

/// A process started by a test, whose output goes to files (so no pipe can fill up and block it)
/// and whose wait is always bounded: at the deadline it is killed and the result says so.
public final class ChildProcess: Sendable {
    /// How a finished process ended and what it wrote.
    public struct Result: Sendable {
        /// The exit status (or the signal number, when it was killed).
        public var status: Int32
        /// Everything written to stdout.
        public var stdout: String
        /// Everything written to stderr.
        public var stderr: String
        /// True when the deadline passed and the process was killed.
        public var timedOut: Bool

        /// stderr split into lines, without the empty one after the final newline.
        public var stderrLines: [String] {
            stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        }
    }

    private let process: Process
    private let exits: AsyncStream<Int32>
    private let outputDirectory: TemporaryDirectory

    /// Starts `executable` with `arguments`; `environment` replaces the test's environment entirely.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        outputDirectory = try TemporaryDirectory(prefix: "child-output")
        let stdoutURL = outputDirectory.url.appending(path: "stdout")
        let stderrURL = outputDirectory.url.appending(path: "stderr")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        self.process = process
        exits = process.exitStatus()
        try process.run()
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// True until the process has ended.
    public var isRunning: Bool { process.isRunning }

    /// Waits until the process ends or `timeout` passes (then kills it), and returns what it wrote.
    public func finish(within timeout: Duration = .seconds(60)) async -> Result {
        let killedByDeadline = Mutex(false)
        let pid = process.processIdentifier
        let deadline = Task {
            try await Task.sleep(for: timeout)
            killedByDeadline.withLock { $0 = true }
            kill(pid, SIGKILL)
        }
        var status: Int32 = -1
        for await exitStatus in exits {
            status = exitStatus
        }
        deadline.cancel()
        let read = { (name: String) in
            (try? String(contentsOf: self.outputDirectory.url.appending(path: name), encoding: .utf8)) ?? ""
        }
        return Result(status: status, stdout: read("stdout"), stderr: read("stderr"), timedOut: killedByDeadline.withLock { $0 })
    }
}

extension Process {
    /// A stream that yields the process' exit status once it ends (set before `run()`).
    func exitStatus() -> AsyncStream<Int32> {
        let (exits, continuation) = AsyncStream<Int32>.makeStream()
        terminationHandler = { finished in
            continuation.yield(finished.terminationStatus)
            continuation.finish()
        }
        return exits
    }
}
