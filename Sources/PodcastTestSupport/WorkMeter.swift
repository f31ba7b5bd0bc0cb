import CInstructionCounter
import Glibc

/// Measures the work the calling thread does in a piece of synchronous code, so a test can show
/// it is linear in its input by comparing the work per byte at two sizes, without a bound in
/// seconds: instructions retired in user space where the machine counts them (the same whatever
/// the load), else the thread's own CPU time (virtual machines without a PMU: what other threads
/// and processes do is not counted, and a ratio from one run holds under load where seconds do
/// not). Synchronous code only: an `await` may move a task to another thread.
public enum WorkMeter {
    /// What the work was counted in.
    public enum Unit: String, Sendable {
        case instructions
        case cpuNanoseconds = "ns of CPU"
    }

    /// The work `body` does on this thread, and its unit.
    public static func work(of body: () throws -> Void) rethrows -> (amount: Double, unit: Unit) {
        let counter = podcast_instruction_counter_open()
        if counter >= 0 {
            defer { close(counter) }
            let start = podcast_instruction_counter_read(counter)
            try body()
            let end = podcast_instruction_counter_read(counter)
            if start >= 0, end >= start { return (Double(end - start), .instructions) }
        }
        let start = threadCPUTime()
        try body()
        return (Double(threadCPUTime() - start), .cpuNanoseconds)
    }

    private static func threadCPUTime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
