import Foundation
import Glibc
import PodcastPlatform
import PodcastTestSupport
import Synchronization
import Testing

/// What FileIO reports when a system call fails in ways no test can cause on a real disk (full,
/// interrupted by a signal, across file systems): the failing call is put in place through
/// `FileIO.calls`, so each test takes milliseconds and needs no full disk.
@Suite(.timeLimit(.minutes(5))) struct FileIOFaultTests {
    /// Counts the calls a fake saw, from whichever thread makes them.
    final class Calls: Sendable {
        private let count = Mutex(0)

        /// Counts one call and returns how many there were, this one included.
        func next() -> Int { count.withLock { $0 += 1; return $0 } }
        /// How many calls there were.
        var made: Int { count.withLock { $0 } }
    }

    /// The system's calls, but `failing` in place of those it changes.
    static func calls(_ change: (inout FileSystemCalls) -> Void) -> FileSystemCalls {
        var calls = FileSystemCalls.system
        change(&calls)
        return calls
    }

    /// Fails a call the way the system does: sets errno to `code` and returns -1.
    static func fail<Result: BinaryInteger>(_ code: Int32) -> Result {
        errno = code
        return -1
    }

    @Test func aFullDiskOnWriteIsReportedWithTheCallAndThePath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("episode.mp3")
        let full = Self.calls { $0.write = { _, _, _ in Self.fail(ENOSPC) } }
        #expect(throws: SystemError(call: "write", path: path, code: ENOSPC)) {
            try FileIO.$calls.withValue(full) { try FileIO.writeNewFile(path, contents: Array("abc".utf8)) }
        }
    }

    @Test func aFullDiskOnPositionedWriteIsReportedAsPwrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("episode.mp3")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let full = Self.calls { $0.pwrite = { _, _, _, _ in Self.fail(ENOSPC) } }
        #expect(throws: SystemError(call: "pwrite", path: path, code: ENOSPC)) {
            try FileIO.$calls.withValue(full) { try FileIO.write(ArraySlice<UInt8>([1, 2, 3]), to: descriptor, at: 10, path: path) }
        }
    }

    @Test func aWriteInterruptedByASignalIsRetriedAndWritesEverything() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        let writes = Calls()
        let interruptedOnce = Self.calls {
            $0.write = { descriptor, bytes, count in
                writes.next() == 1 ? Self.fail(EINTR) : FileSystemCalls.system.write(descriptor, bytes, count)
            }
        }
        try FileIO.$calls.withValue(interruptedOnce) { try FileIO.writeNewFile(path, contents: Array("whole".utf8)) }
        #expect(writes.made == 2)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "whole")
    }

    @Test func aReadInterruptedByASignalIsRetriedAndReadsEverything() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("feed.xml")
        try Data("<rss/>".utf8).write(to: URL(filePath: path))
        let reads = Calls()
        let interruptedOnce = Self.calls {
            $0.read = { descriptor, buffer, count in
                reads.next() == 1 ? Self.fail(EINTR) : FileSystemCalls.system.read(descriptor, buffer, count)
            }
        }
        var bytes: [UInt8] = []
        try FileIO.$calls.withValue(interruptedOnce) {
            try FileIO.read(path) { piece in
                bytes += piece
                return true
            }
        }
        #expect(reads.made >= 2)
        #expect(String(decoding: bytes, as: UTF8.self) == "<rss/>")
    }

    @Test func aFailedFlushIsReportedWithTheCallAndThePath() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("episode.mp3")
        try Data("abc".utf8).write(to: URL(filePath: path))
        let failing = Self.calls { $0.fdatasync = { _ in Self.fail(EIO) } }
        #expect(throws: SystemError(call: "fdatasync", path: path, code: EIO)) {
            try FileIO.$calls.withValue(failing) { try FileIO.syncData(path) }
        }
    }

    @Test func aFailedRenameKeepsTheOldFileRemovesTheTemporaryAndIsReported() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("headers")
        try Data("old".utf8).write(to: URL(filePath: path))
        let acrossDevices = Self.calls { $0.rename = { _, _ in Self.fail(EXDEV) } }
        #expect(throws: SystemError(call: "rename", path: path, code: EXDEV)) {
            try FileIO.$calls.withValue(acrossDevices) {
                let writer = try AtomicFileWriter(destination: path)
                Data("new".utf8).withUnsafeBytes { writer.write($0) }
                try writer.commit()
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileIO.names(in: directory.path) == ["headers"])
    }

    @Test func aFullDiskWhileAnAtomicWriteIsReportedAtCommitAndLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("pid")
        let full = Self.calls { $0.write = { _, _, _ in Self.fail(ENOSPC) } }
        let writer = try FileIO.$calls.withValue(full) { try AtomicFileWriter(destination: path) }
        Data("123".utf8).withUnsafeBytes { writer.write($0) }
        do {
            try writer.commit()
            Issue.record("the commit succeeded")
        } catch {
            #expect(error.call == "write")
            #expect(error.code == ENOSPC)
            #expect(error.path?.hasPrefix(path + ".partial-") == true)
        }
        #expect(try FileIO.names(in: directory.path).isEmpty)
    }

    @Test func aRenameWithoutReplacingThatFailsIsReportedWithTheDestination() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("episode.partial")
        let destination = directory.path("episode.mp3")
        try Data("abc".utf8).write(to: URL(filePath: source))
        let acrossDevices = Self.calls { $0.renameWithoutReplacing = { _, _ in Self.fail(EXDEV) } }
        #expect(throws: SystemError(call: "rename", path: destination, code: EXDEV)) {
            try FileIO.$calls.withValue(acrossDevices) { try FileIO.moveWithoutReplacing(source, to: destination) }
        }
        #expect(try FileIO.names(in: directory.path) == ["episode.partial"])
    }

    /// Where the file system has no renameat2 flags (EINVAL), a hard link and an unlink move the file.
    @Test func aRenameWithoutReplacingFallsBackToALinkWhereTheFileSystemCannot() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("episode.partial")
        let destination = directory.path("episode.mp3")
        try Data("abc".utf8).write(to: URL(filePath: source))
        let unsupported = Self.calls { $0.renameWithoutReplacing = { _, _ in Self.fail(EINVAL) } }
        let moved = try FileIO.$calls.withValue(unsupported) { try FileIO.moveWithoutReplacing(source, to: destination) }
        #expect(moved)
        #expect(try FileIO.names(in: directory.path) == ["episode.mp3"])
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "abc")
    }
}
