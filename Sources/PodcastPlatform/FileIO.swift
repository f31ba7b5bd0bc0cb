import CFileSystem
import Glibc

/// Reading and atomically replacing files, retrying EINTR, errors naming the call and the path.
/// The calls that can fail for want of space or by a signal go through `calls` (FileSystemCalls).
public enum FileIO {
    /// Reads the file at `path` in pieces of `pieceSize` bytes, handing each to `body` until the
    /// end or until `body` returns false.
    public static func read(
        _ path: String, pieceSize: Int = 64 * 1024, _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(SystemError) {
        let descriptor = calls.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        defer { close(descriptor) }
        try read(descriptor: descriptor, path: path, pieceSize: pieceSize, body)
    }

    /// Reads the open file `descriptor` (the file at `path`, for errors) from where it stands, in
    /// pieces of `pieceSize` bytes, handing each to `body` until the end or until it returns false.
    public static func read(
        descriptor: Int32, path: String, pieceSize: Int = 64 * 1024, _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(SystemError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 16)
        defer { buffer.deallocate() }
        let calls = Self.calls
        while true {
            let count = calls.read(descriptor, buffer.baseAddress, pieceSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("read", path: path)
            }
            if count == 0 || !body(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { return }
        }
    }

    /// Whether the file system holding `path` keeps its data in memory only (tmpfs, ramfs): there
    /// is no disk to flush to, so syncing a file there is a no-op not worth its system calls.
    public static func isInMemory(_ path: String) -> Bool {
        podcast_file_system_in_memory(path) == 1
    }

    /// Which file a name stands for (its device and inode) and when it last changed (its ctime, in
    /// nanoseconds: every write, truncation, rename or chmod moves it, and no one can set it back).
    /// Two stamps of the same file with the same ctime mean the file was not touched in between.
    public struct Stamp: Equatable, Sendable {
        /// The file system's device number.
        public let device: UInt64
        /// The file's inode number on it.
        public let inode: UInt64
        /// Its status change time, nanoseconds since 1970.
        public let changed: Int64

        /// A stamp as the store keeps it.
        public init(device: UInt64, inode: UInt64, changed: Int64) {
            self.device = device
            self.inode = inode
            self.changed = changed
        }

        /// The stamp of what `info` (from stat(2) or lstat(2)) describes.
        public init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            changed = Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec)
        }

        /// The ctime of a stamp taken later than the file was placed: no file's ctime, so the stamp
        /// names the file but never vouches that it is untouched.
        public static let unknownChange = Int64.min

        /// True when both stamps are of one file, changed or not.
        public func isSameFile(as other: Stamp) -> Bool {
            device == other.device && inode == other.inode
        }
    }

    /// The stamp of what is at `path` itself (a symbolic link's own, not its target's), or nil
    /// when nothing is there.
    public static func stamp(ofName path: String) -> Stamp? {
        var info = stat()
        return lstat(path, &info) == 0 ? Stamp(info) : nil
    }

    /// The size of the regular file at `path`, or nil when there is none (or it is not a regular file).
    public static func regularFileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Flushes the data of the file (or directory) at `path` to disk.
    public static func syncData(_ path: String) throws(SystemError) {
        let calls = Self.calls
        let descriptor = calls.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        defer { close(descriptor) }
        guard calls.fdatasync(descriptor) == 0 else { throw .last("fdatasync", path: path) }
    }

    /// Starts writing `range` of the file at `path` to disk, without waiting.
    public static func startWriteback(_ path: String, of range: Range<Int64>) throws(SystemError) {
        let descriptor = calls.open(path, O_WRONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        defer { close(descriptor) }
        guard podcast_start_writeback(descriptor, range.lowerBound, Int64(range.count)) == 0 else {
            throw .last("sync_file_range", path: path)
        }
    }

    /// Renames `source` to `destination` unless something is there already: false then, and
    /// nothing changes. Where the file system cannot rename that way, a hard link and an unlink
    /// do the same in two steps.
    public static func moveWithoutReplacing(_ source: String, to destination: String) throws(SystemError) -> Bool {
        if calls.renameWithoutReplacing(source, destination) == 0 { return true }
        if errno == EEXIST { return false }
        guard errno == EINVAL || errno == ENOSYS else { throw .last("rename", path: destination) }
        if link(source, destination) != 0 {
            if errno == EEXIST { return false }
            throw .last("link", path: destination)
        }
        // Ownership: the new link holds the file now; `source` is the caller's own temporary name.
        unlink(source)
        return true
    }

    /// Writes `contents` to a new file at `path` (replacing what a crash left there), mode 0644.
    public static func writeNewFile(_ path: String, contents: some Collection<UInt8>) throws(SystemError) {
        try writeNewFile(path, from: [.bytes(Array(contents))])
    }

    /// The folder of the file at `path` (`.` for a bare name).
    public static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    }

    /// What a new file is made of, in order.
    public enum Piece: Sendable {
        case bytes([UInt8])
        /// A range of another file, copied inside the kernel: its bytes never pass through this
        /// process (through a buffer where the file systems cannot do that).
        case range(Range<Int64>, of: String)
    }

    /// Writes a new file at `path` (replacing what a crash left there), mode 0644, from `pieces`.
    /// Never through a symbolic link someone put at that name (O_NOFOLLOW: the open fails).
    public static func writeNewFile(_ path: String, from pieces: [Piece]) throws(SystemError) {
        let descriptor = calls.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        defer { close(descriptor) }
        for piece in pieces {
            switch piece {
            case .bytes(let bytes): try write(bytes[...], to: descriptor, path: path)
            case .range(let range, let source): try copy(range, of: source, to: descriptor, path: path)
            }
        }
    }

    /// Writes all of `bytes` to `descriptor` (the file at `path`, for errors), at its position or
    /// at `position` in the file when given.
    public static func write(_ bytes: ArraySlice<UInt8>, to descriptor: Int32, at position: Int64? = nil, path: String) throws(SystemError) {
        let failure: SystemError? = bytes.withUnsafeBytes { raw in
            do throws(SystemError) {
                try write(raw, to: descriptor, at: position, path: path)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` to `descriptor` (the file at `path`, for errors), at its position or
    /// at `position` in the file when given.
    public static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at position: Int64? = nil, path: String) throws(SystemError) {
        let calls = Self.calls
        var offset = 0
        while offset < bytes.count {
            let start = bytes.baseAddress.map { $0 + offset }
            let written = if let position {
                calls.pwrite(descriptor, start, bytes.count - offset, off_t(position) + off_t(offset))
            } else {
                calls.write(descriptor, start, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .last(position == nil ? "write" : "pwrite", path: path)
            }
            offset += written
        }
    }

    private static func copy(_ range: Range<Int64>, of source: String, to output: Int32, path: String) throws(SystemError) {
        let input = calls.open(source, O_RDONLY | O_CLOEXEC, 0)
        guard input >= 0 else { throw .last("open", path: source) }
        defer { close(input) }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = podcast_copy_range(input, offset, output, range.upperBound - offset)
            if count < 0 {
                if errno == EINTR { continue }
                guard [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP].contains(errno) else { throw .last("copy_file_range", path: path) }
                return try copyThroughBuffer(offset..<range.upperBound, of: (input, source), to: output, path: path)
            }
            // Some file systems (FUSE, network ones) stop short: the buffer finds out whether the file does.
            guard count > 0 else { return try copyThroughBuffer(offset..<range.upperBound, of: (input, source), to: output, path: path) }
            offset += count
        }
    }

    private static func copyThroughBuffer(_ range: Range<Int64>, of source: (descriptor: Int32, path: String), to output: Int32, path: String) throws(SystemError) {
        var buffer = [UInt8](repeating: 0, count: 1024 * 1024)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = Int(min(Int64(buffer.count), range.upperBound - offset))
            let count = buffer.withUnsafeMutableBytes { pread(source.descriptor, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("pread", path: source.path)
            }
            guard count > 0 else { throw SystemError(call: "pread", path: source.path, code: EIO) }
            try write(buffer[..<count], to: output, path: path)
            offset += Int64(count)
        }
    }

    /// The bytes of `range` of the file at `path` (fewer when the file ends first).
    public static func bytes(of path: String, in range: Range<Int64>) throws(SystemError) -> [UInt8] {
        let descriptor = calls.open(path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(range.count))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled, off_t(range.lowerBound) + off_t(filled))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .last("pread", path: path)
            }
            if count == 0 { break }
            filled += count
        }
        return Array(bytes.prefix(filled))
    }

    /// The names in the directory at `path`, without `.` and `..`.
    public static func names(in path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw .last("opendir", path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        // The name is read where it lies: copying the entry (`entry.pointee`) reads a whole
        // `dirent`, past the end of a short entry glibc allocated for a short name.
        // A stored field of a C struct: its offset is always known.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        while let entry = readdir(directory) {
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates `path` and any missing parents with `mode`; a relative path stays relative.
    public static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(SystemError) {
        if mkdir(path, mode) == 0 || errno == EEXIST { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { throw .last("mkdir", path: prefix) }
        }
    }
}

/// A file written under a temporary name beside its destination and renamed over it only when
/// complete, so the destination is always either the old file or the whole new one.
public final class AtomicFileWriter {
    /// The file's final path.
    public let destination: String
    private let temporary: String
    private var descriptor: Int32
    /// The calls the writer makes: `FileIO.calls` as they were when it started.
    private let calls: FileSystemCalls
    /// The first write error, if any; `commit` reports it.
    private var failure: SystemError?

    /// Starts writing `destination` (its directory must exist).
    public init(destination: String) throws(SystemError) {
        self.destination = destination
        temporary = destination + ".partial-\(getpid())"
        let calls = FileIO.calls
        self.calls = calls
        descriptor = calls.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .last("open", path: temporary) }
    }

    deinit {
        if descriptor >= 0 {
            // Ownership: this writer's own temporary file (`.partial-<pid>`), never placed.
            close(descriptor)
            unlink(temporary)
        }
    }

    /// Appends `bytes`; a failure is kept and reported by `commit`.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, var start = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = calls.write(descriptor, start, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                failure = .last("write", path: temporary)
                return
            }
            start += written
            remaining -= written
        }
    }

    /// Closes the file and renames it over the destination.
    public func commit() throws(SystemError) {
        defer { descriptor = -1 }
        if let failure {
            // Ownership: this writer's own temporary file, never placed.
            close(descriptor)
            unlink(temporary)
            throw failure
        }
        guard close(descriptor) == 0 else {
            // Ownership: this writer's own temporary file, never placed.
            unlink(temporary)
            throw .last("close", path: temporary)
        }
        // Ownership: an AtomicFileWriter only writes podcast's own files in its home (headers, the worker's pid, batch results, the feed cache), never the Episodes directory.
        guard calls.rename(temporary, destination) == 0 else {
            unlink(temporary)
            throw .last("rename", path: destination)
        }
    }
}
