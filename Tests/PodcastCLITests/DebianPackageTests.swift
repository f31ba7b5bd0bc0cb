import Foundation
import PodcastKit
import PodcastPlatform
import PodcastTestSupport
import Testing

/// The Debian package `make deb` builds (`scripts/deb.sh`), unpacked with `dpkg -x` into a scratch
/// root as `dpkg -i` would install it, and checked by lintian.
///
/// It packages the release binary, which `make test` builds before the tests (2.5 minutes of CPU),
/// not this run's debug one: a debug build loads the Swift runtime from the toolchain through its
/// RUNPATH (`/opt/swift/usr/lib/swift/linux`), which lintian calls an error
/// (custom-library-search-path) and which no package in Depends could provide. Run without make
/// (`swift test --filter DebianPackageTests`), it packages the release build that is there: `make
/// build` first. The package is built once, for every test of the suite, under the build folder
/// (next to `release/`), where the next run replaces it.
@Suite(.timeLimit(.minutes(5))) struct DebianPackageTests {
    /// The package's root, where `scripts/` and `man/` are.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// SwiftPM's folder for this platform, which holds `debug/` (this run's build) and `release/`.
    private static let builds = builtExecutable(named: "podcast").deletingLastPathComponent().deletingLastPathComponent()

    /// A built package and the tree `dpkg -x` unpacked from it.
    struct Package: Sendable {
        /// The `.deb` file.
        var deb: String
        /// Where its files were unpacked: `<installed>/usr/bin/podcast` and so on.
        var installed: String
    }

    /// The package, built by the first test that asks and shared by the others.
    private static let package = Task<Package, any Error> {
        let release = builds.appending(path: "release/podcast").path
        try #require(FileManager.default.isExecutableFile(atPath: release), "no release binary at \(release): `make test` builds it first (or `make build`)")
        let directory = builds.appending(path: "deb-test").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)

        let script = try ChildProcess(
            root.appending(path: "scripts/deb.sh"), [],
            environment: ["PATH": "/usr/bin:/bin", "PODCAST": release, "DEB_DIR": directory])
        let built = await script.finish(within: .seconds(120))
        try #require(built.status == 0, "scripts/deb.sh: \(built.stderr)")
        let deb = built.stdout.trimmingCharacters(in: .newlines)
        let architecture = try await run("/usr/bin/dpkg", ["--print-architecture"]).stdout.trimmingCharacters(in: .newlines)
        #expect(deb == "\(directory)/podcast_\(podcastVersion)_\(architecture).deb")

        let installed = directory + "/root"
        let unpacked = try await run("/usr/bin/dpkg", ["-x", deb, installed])
        try #require(unpacked.status == 0, "dpkg -x: \(unpacked.stderr)")
        return Package(deb: deb, installed: installed)
    }

    /// Runs a tool with a plain environment and returns what it did.
    private static func run(_ tool: String, _ arguments: [String], within timeout: Duration = .seconds(60)) async throws -> ChildProcess.Result {
        let process = try ChildProcess(URL(fileURLWithPath: tool), arguments, environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MANWIDTH": "80"])
        return await process.finish(within: timeout)
    }

    @Test func theInstalledBinaryRunsAndSaysItsVersion() async throws {
        let package = try await Self.package.value
        let version = try await Self.run(package.installed + "/usr/bin/podcast", ["--version"])
        #expect(version.status == 0, "\(version.stderr)")
        #expect(version.stdout == "podcast \(podcastVersion)\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "setup.sh installs man-db"))
    func theInstalledManPageRendersWithoutWarnings() async throws {
        let package = try await Self.package.value
        let rendered = try await Self.run("/usr/bin/man", ["-P", "cat", "-l", package.installed + "/usr/share/man/man1/podcast.1.gz"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        #expect(rendered.stdout.hasPrefix("PODCAST(1)"))
    }

    @Test func theCompletionsAndTheUserUnitsAreInstalled() async throws {
        let share = try await Self.package.value.installed + "/usr/share"
        let bash = share + "/bash-completion/completions/podcast"
        let sourced = try await Self.run("/bin/bash", ["-c", "source \"$0\" && complete -p podcast", bash])
        #expect(sourced.status == 0 && sourced.stdout.contains(" -F _podcast podcast"), "\(sourced.stdout)\(sourced.stderr)")
        #expect(try !String(contentsOfFile: bash, encoding: .utf8).hasPrefix("#!"), "a completion is sourced, not run")
        let zsh = try String(contentsOfFile: share + "/zsh/vendor-completions/_podcast", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef podcast"))
        let fish = try String(contentsOfFile: share + "/fish/vendor_completions.d/podcast.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'podcast'"))

        let units = try await Self.package.value.installed + "/usr/lib/systemd/user/"
        let service = try String(contentsOfFile: units + "podcast-update.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/bin/podcast update -q\n"))
        #expect(FileManager.default.fileExists(atPath: units + "podcast-update.timer"))
    }

    /// TagLib's C API is loaded with dlopen, so only the script's reading of the binary's sonames
    /// puts it in Depends; libcurl, libcrypto (libssl3), libxml2 and SQLite are linked.
    @Test func dependsNamesTheLinkedAndTheDlopenedLibraries() async throws {
        let package = try await Self.package.value
        let field = try await Self.run("/usr/bin/dpkg-deb", ["--field", package.deb, "Depends"])
        #expect(field.status == 0, "\(field.stderr)")
        let packages = field.stdout.split(whereSeparator: { ",|\n".contains($0) }).compactMap { $0.split(separator: " ").first.map(String.init) }
        for library in ["libcurl", "libssl", "libtag", "libxml2", "libsqlite3", "libc6"] {
            #expect(packages.contains { $0.hasPrefix(library) }, "no \(library) package in Depends: \(field.stdout)")
        }
        // Not the 7.83 libcurl's symbols would allow: podcast needs CURLOPT_PROTOCOLS_STR (7.85).
        let floor = try #require(field.stdout.firstMatch(of: #/libcurl4 \(>= 7\.(\d+)/#), "\(field.stdout)")
        #expect(Int(floor.1) ?? 0 >= 85, "\(field.stdout)")
    }

    @Test func lintianFindsNoErrors() async throws {
        let package = try await Self.package.value
        let lintian = try await Self.run("/usr/bin/lintian", ["--fail-on", "error", package.deb], within: .seconds(150))
        #expect(lintian.status == 0, "\(lintian.stdout)\(lintian.stderr)")
        #expect(!lintian.stdout.contains("E: "), "\(lintian.stdout)")
    }
}
