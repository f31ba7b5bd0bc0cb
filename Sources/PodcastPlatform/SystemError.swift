import Glibc

/// A failed system call: which call, on which path, and the errno it set.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call that failed, such as `open` or `rename`.
    public var call: String
    /// The file the call was about, when there was one.
    public var path: String?
    /// The errno value.
    public var code: Int32

    /// Creates an error from a call, its path and an errno value.
    public init(call: String, path: String? = nil, code: Int32) {
        self.call = call
        self.path = path
        self.code = code
    }

    /// The current `errno` for `call`.
    public static func last(_ call: String, path: String? = nil) -> SystemError {
        SystemError(call: call, path: path, code: errno)
    }

    /// The system's text for the errno value, such as "No space left on device".
    public var reason: String {
        String(cString: strerror(code))
    }

    /// One line: the call, the path, the system's reason.
    public var description: String {
        if let path {
            return "\(call) \(path): \(reason)"
        }
        return "\(call): \(reason)"
    }
}
