import Glibc

/// A process that can own a download record: its pid and the boot it runs in, so a pid reused
/// after a reboot is not mistaken for the old owner.
public struct ProcessOwner: Sendable, Equatable {
    /// The process id.
    public var pid: Int32
    /// `/proc/sys/kernel/random/boot_id` of the boot it ran in.
    public var boot: String

    /// Creates an owner.
    public init(pid: Int32, boot: String) {
        self.pid = pid
        self.boot = boot
    }

    /// This process.
    public static let current = ProcessOwner(pid: getpid(), boot: currentBoot)

    /// The running boot's id ("" when /proc does not say).
    public static let currentBoot: String = {
        var text = ""
        try? FileIO.read("/proc/sys/kernel/random/boot_id") { bytes in
            text += String(decoding: bytes, as: UTF8.self)
            return true
        }
        return text.trimmingWhitespace()
    }()

    /// True while the process still runs (same boot, pid alive).
    public var isAlive: Bool {
        guard boot == Self.currentBoot else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}
