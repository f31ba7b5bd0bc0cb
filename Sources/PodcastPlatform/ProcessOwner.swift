import Glibc
import PodcastText

/// A process that can own a download record: its pid, the boot it runs in and its start time, so
/// a pid reused after a reboot or by a later process is not mistaken for the old owner.
public struct ProcessOwner: Sendable, Equatable {
    /// The process id.
    public var pid: Int32
    /// `/proc/sys/kernel/random/boot_id` of the boot it ran in.
    public var boot: String
    /// When it started, in clock ticks after boot (`/proc/<pid>/stat` field 22); nil when unknown.
    public var started: Int64?

    /// Creates an owner.
    public init(pid: Int32, boot: String, started: Int64? = nil) {
        self.pid = pid
        self.boot = boot
        self.started = started
    }

    /// This process.
    public static let current = ProcessOwner(pid: getpid(), boot: currentBoot, started: startTime(of: getpid()))

    /// The running boot's id ("" when /proc does not say).
    public static let currentBoot: String = {
        var text = ""
        try? FileIO.read("/proc/sys/kernel/random/boot_id") { bytes in
            text += String(decoding: bytes, as: UTF8.self)
            return true
        }
        return text.trimmingWhitespace()
    }()

    /// True while the process still runs (same boot, pid alive and, when known, started at the
    /// same time). A zombie has ended: `kill(pid, 0)` still succeeds until its parent reaps it,
    /// which a parent that never reaps (a PID 1 without an init) never does.
    public var isAlive: Bool {
        guard boot == Self.currentBoot else { return false }
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let status = Self.status(of: pid) else { return false }
        guard status.state != "Z" && status.state != "X" else { return false }
        guard let started else { return true }
        return status.started == started
    }

    /// Process `pid`'s start time from `/proc/<pid>/stat`, or nil when it is gone or unreadable.
    static func startTime(of pid: Int32) -> Int64? {
        status(of: pid)?.started
    }

    /// Process `pid`'s state letter (`R`, `S`, `Z`…) and start time from `/proc/<pid>/stat`, or
    /// nil when it is gone or unreadable.
    static func status(of pid: Int32) -> (state: Character, started: Int64?)? {
        var text = ""
        guard (try? FileIO.read("/proc/\(pid)/stat", { bytes in
            text += String(decoding: bytes, as: UTF8.self)
            return true
        })) != nil else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: count fields after its ")".
        guard let end = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        // Field 3 (state) is fields[0], so field 22 is fields[19].
        guard let state = fields.first?.first else { return nil }
        return (state, fields.count > 19 ? Int64(fields[19]) : nil)
    }
}
