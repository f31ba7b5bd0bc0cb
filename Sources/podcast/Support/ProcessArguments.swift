import Glibc
import PodcastText

/// The secrets in this process's own arguments, hidden from other users of the machine: its
/// arguments are readable by anyone (`ps`, `/proc/<pid>/cmdline`) for as long as it runs, and a
/// download may run for hours. As curl does with `-u`, the bytes the kernel shows are
/// overwritten in place, once the arguments have been read: a URL's credentials and secret
/// parameters (`SecretRedactor`) and the value of each `--header`.
enum ProcessArguments {
    /// Blanks the secrets of `CommandLine.unsafeArgv`; call it only after `CommandLine.arguments`
    /// was read, which copies them first.
    static func hideSecrets() {
        var headerFollows = false
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeMutableRawBufferPointer(start: argument, count: strlen(argument))
            if headerFollows { blankHeaderValue(bytes) }
            headerFollows = bytes.elementsEqual("--header".utf8)
            if bytes.starts(with: "--header=".utf8) { blankHeaderValue(bytes) }
            SecretRedactor.blank(bytes)
        }
    }

    /// Overwrites what follows the first `:` of a `Name: value` header (its leading spaces kept).
    private static func blankHeaderValue(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        for index in bytes.indices.dropFirst(colon + 1) where bytes[index] != UInt8(ascii: " ") {
            bytes[index] = UInt8(ascii: "*")
        }
    }
}
