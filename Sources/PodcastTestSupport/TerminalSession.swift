import CTerminal
import Foundation
import Synchronization

/// A process run on a pseudo-terminal of a chosen size, as a person's terminal would run it:
/// everything it writes to stdout and stderr is kept, byte for byte (the terminal is in raw
/// mode, so no newline is rewritten), and the terminal can be resized and signalled.
public final class TerminalSession: Sendable {
    private let process: Process
    private let controller: Int32
    private let output = Received()
    private let exits: AsyncStream<Int32>
    /// Ends when the reading thread has read everything (the process and its children are gone).
    private let drained: AsyncStream<Void>

    /// Starts `executable` with `arguments` and `environment` on a `rows` x `columns` terminal.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String], rows: Int, columns: Int) throws {
        var controller: Int32 = -1, device: Int32 = -1
        guard podcast_open_pseudo_terminal(Int32(rows), Int32(columns), &controller, &device) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        self.controller = controller
        let terminal = FileHandle(fileDescriptor: device, closeOnDealloc: true)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        self.process = process
        exits = process.exitStatus()
        try process.run()
        // Only the child keeps the terminal open now, so reading ends when it exits.
        try terminal.close()
        let readEnd = controller
        let (drained, drainedContinuation) = AsyncStream<Void>.makeStream()
        self.drained = drained
        let thread = Thread { [output] in
            defer { drainedContinuation.finish() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output.bytes.withLock { $0 += buffer[..<count] }
            }
        }
        thread.start()
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }

    /// Everything written so far.
    public var bytes: [UInt8] { output.bytes.withLock { $0 } }

    /// Everything written so far, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Waits until `condition` holds for the text written so far, looking every 20 ms, for at
    /// most `timeout`; returns whether it held.
    public func wait(upTo timeout: Duration = .seconds(60), until condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(text)
    }

    /// Gives the terminal a new size and tells the process (SIGWINCH), as a resized window does.
    public func resize(rows: Int, columns: Int) {
        _ = podcast_set_terminal_size(controller, Int32(rows), Int32(columns))
        kill(process.processIdentifier, SIGWINCH)
    }

    /// Types `text` at the terminal, as a person would (raw mode: a newline is sent as it is).
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in write(controller, buffer.baseAddress.map { $0 + offset }, buffer.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit (killing it after `timeout`) and for its last bytes to be
    /// read, and returns its status.
    public func finish(within timeout: Duration = .seconds(60)) async -> Int32 {
        let pid = process.processIdentifier
        let deadline = Task {
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
        }
        var status: Int32 = -1
        for await exitStatus in exits { status = exitStatus }
        for await _ in drained {}
        deadline.cancel()
        return status
    }

    /// What the terminal received, shared with the thread that reads it.
    private final class Received: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
