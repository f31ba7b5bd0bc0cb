import Glibc
@testable import PodcastKit
import Testing

/// Temporary files are named for their process, so `podcast clean` removes only what a process
/// that has ended left behind, with or without the extension a library needed.
@Suite(.timeLimit(.minutes(5))) struct ProcessTemporaryTests {
    /// A process id no process has (above the default pid_max of 4,194,304 on 64-bit Linux).
    static let endedProcess = "4194305"

    @Test(arguments: [nil, "opus"])
    func ourOwnFileIsNotOrphanedAndAnEndedProcesssIs(fileExtension: String?) {
        let path = ProcessTemporary.path(in: "/folder", for: "episode\ntagged copy", fileExtension: fileExtension)
        let name = String(path.dropFirst("/folder/".count))
        #expect(name.hasPrefix(".podcast-"))
        #expect(fileExtension.map { name.hasSuffix(".tmp." + $0) } ?? name.hasSuffix(".tmp"))
        #expect(!ProcessTemporary.isOrphaned(name: name))
        let ended = name.replacingOccurrences(of: ".\(getpid()).tmp", with: ".\(Self.endedProcess).tmp")
        #expect(ended != name)
        #expect(ProcessTemporary.isOrphaned(name: ended))
    }

    @Test(arguments: ["episode.mp3", ".podcast-abc.tmp", ".podcast-abc.x.tmp", "notes.podcast-1.tmp", ".podcast-abc.\(endedProcess).tmpx"])
    func otherNamesAreNeverOrphanedTemporaries(name: String) {
        #expect(!ProcessTemporary.isOrphaned(name: name))
    }
}
