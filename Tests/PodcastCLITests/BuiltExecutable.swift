import Foundation

/// The executable `name` (`podcast`, `podcast-store-probe`, …) that SwiftPM built next to the test bundle.
///
/// When no candidate exists the first expected location is returned, so launching it fails
/// with an error that names where the executable should have been.
func builtExecutable(named name: String) -> URL {
    let candidates = productDirectories().map { $0.appendingPathComponent(name) }
    let fileManager = FileManager.default
    if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0.path) }) {
        return found
    }
    return candidates.first ?? URL(fileURLWithPath: name)
}

/// Directories that may hold the products of this build, most likely first.
private func productDirectories() -> [URL] {
    var directories: [URL] = []
    // Linux runs the test bundle as an executable inside the products directory.
    if let executable = CommandLine.arguments.first {
        directories.append(URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent())
    }
    // macOS loads `<products>/<package>PackageTests.xctest` into a runner that lives elsewhere.
    for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
        directories.append(bundle.bundleURL.deletingLastPathComponent())
    }
    directories.append(Bundle.main.bundleURL)
    // Last resort: any build directory of this package, the most recently built first.
    directories.append(contentsOf: buildDirectoriesOfPackage())
    return directories
}

/// `<package>/.build*/debug` and `release`, newest first, found by walking up from this source file.
private func buildDirectoriesOfPackage() -> [URL] {
    let fileManager = FileManager.default
    var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while directory.path != "/" {
        if fileManager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
            let entries = (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
            let products = entries.filter { $0.hasPrefix(".build") }.flatMap { scratch in
                ["debug", "release"].map { directory.appendingPathComponent(scratch).appendingPathComponent($0) }
            }
            return products.sorted { modificationDate(of: $0) > modificationDate(of: $1) }
        }
        directory.deleteLastPathComponent()
    }
    return []
}

private func modificationDate(of url: URL) -> Date {
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    return attributes?[.modificationDate] as? Date ?? .distantPast
}
