import Foundation

/// The executable `name` (`podcast`, `podcast-store-probe`, …) that SwiftPM built for this test run.
///
/// SwiftPM puts executables next to the test bundle: on Linux the bundle runs as an executable in
/// the products directory, on macOS an `.xctest` bundle is loaded from it. No other build folder is
/// searched, so a test can never run a stale binary from another build. When the executable is
/// missing, the path where it should be is returned and launching it fails naming that path.
func builtExecutable(named name: String) -> URL {
    var directories: [URL] = []
    if let executable = CommandLine.arguments.first {
        directories.append(URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent())
    }
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
        directories.append(bundle.bundleURL.deletingLastPathComponent())
    }
    let candidates = directories.map { $0.appendingPathComponent(name) }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        ?? candidates.first ?? URL(fileURLWithPath: name)
}
