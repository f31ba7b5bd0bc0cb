import CFileSystem
import Glibc

/// The system calls on files that fail for reasons a test cannot bring about on demand (a full
/// disk, a signal, a rename across file systems). `FileIO`, `AtomicFileWriter`, the download
/// engine's partial files and the renames that adopt and place files make them through these
/// closures and nowhere else, so a test can put a failing one in place of any
/// (`FileIO.$calls.withValue(...)`, handed on to the threads `ThreadStart` starts) and check what
/// the caller reports.
///
/// Each closure returns what its system call returns and sets `errno` as it does.
public struct FileSystemCalls: Sendable {
    /// open(2), with the mode a new file gets (ignored unless `flags` create one).
    public var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32
    /// read(2).
    public var read: @Sendable (_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int
    /// write(2).
    public var write: @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int
    /// pwrite(2).
    public var pwrite: @Sendable (_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ offset: off_t) -> Int
    /// fdatasync(2).
    public var fdatasync: @Sendable (_ descriptor: Int32) -> Int32
    /// rename(2).
    public var rename: @Sendable (_ source: String, _ destination: String) -> Int32
    /// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST when `destination` exists.
    public var renameWithoutReplacing: @Sendable (_ source: String, _ destination: String) -> Int32
    /// statvfs(2): the bytes free to an unprivileged writer on the file system holding `path`,
    /// or nil when it cannot be asked.
    public var freeSpace: @Sendable (_ path: String) -> Int64?

    /// The calls as the system makes them.
    public static let system = FileSystemCalls(
        open: { Glibc.open($0, $1, $2) },
        read: { Glibc.read($0, $1, $2) },
        write: { Glibc.write($0, $1, $2) },
        pwrite: { Glibc.pwrite($0, $1, $2, $3) },
        fdatasync: { Glibc.fdatasync($0) },
        rename: { Glibc.rename($0, $1) },
        renameWithoutReplacing: { podcast_rename_noreplace($0, $1) },
        freeSpace: { path in
            var info = statvfs()
            guard statvfs(path, &info) == 0 else { return nil }
            let (bytes, overflow) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(by: Int64(clamping: info.f_frsize))
            return overflow ? .max : bytes
        }
    )
}

extension FileIO {
    /// The calls FileIO makes: the system's, but where a test put others in their place.
    @TaskLocal public static var calls: FileSystemCalls = .system
}
