import Glibc
import PodcastText

extension Console {
    /// True when a person can be asked: stdin and stderr are both a terminal (a pipe or cron
    /// never is, and then nothing waits for an answer that cannot come).
    var inputAndErrorsAreTerminal: Bool { isatty(STDIN_FILENO) == 1 && stderrIsTerminal }

    /// Writes `question` and ` [y/N] ` to stderr (also with `--quiet`: the answer is asked for)
    /// and reads one line from stdin: true only for `y` or `yes`, in any case. End of input is no.
    func confirm(_ question: String) -> Bool {
        Self.write(question + " [y/N] ", to: STDERR_FILENO)
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while answer.count < 64 {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else {
                // No Enter was echoed: end the question's line.
                Self.write("\n", to: STDERR_FILENO)
                break
            }
            guard byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") else { break }
            answer.append(byte)
        }
        let word = String(decoding: answer, as: UTF8.self).trimmingWhitespace().lowercased()
        return word == "y" || word == "yes"
    }
}
