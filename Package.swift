// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "podcast",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "podcast", targets: ["podcast"]),
        .library(name: "PodcastKit", targets: ["PodcastKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries, each behind a small typed shim (variadic C calls and macros Swift cannot import).
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // SHA-2 from libcrypto (OpenSSL), for the digests of finished files and the ones feeds publish.
        .systemLibrary(name: "CDigest", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // TagLib's C API (libtagc0-dev), for writing tags into finished episodes; loaded on first use.
        .target(name: "CTagLib"),
        // wcwidth(3), which Glibc hides from Swift unless _XOPEN_SOURCE is defined.
        .target(name: "CTerminal"),
        // sync_file_range(2), renameat2(2) and copy_file_range(2), which Glibc hides from Swift unless _GNU_SOURCE is defined.
        .target(name: "CFileSystem"),
        // perf_event_open(2), for tests that bound work in instructions rather than time.
        .target(name: "CInstructionCounter"),

        // The TOML 1.0 parser the configuration file is read with. Pure: no I/O, no other target.
        .target(name: "PodcastTOML"),
        // Text as people read it: display width, wrapping, tables, HTML to text, redaction, edit
        // distance, dates. Pure: no I/O.
        .target(name: "PodcastText", dependencies: ["CTerminal"]),
        // The system layer: FileIO (the system calls on files, errors naming the call and the path),
        // threads, SHA-2, the process's paths and owner.
        .target(name: "PodcastPlatform", dependencies: ["PodcastText", "CDigest", "CFileSystem"]),
        // HTTP over libcurl: one request at a time (HTTPClient), the easy handle the download engine
        // drives, redirects, cookies, errors and the settings they follow.
        .target(name: "PodcastHTTP", dependencies: ["PodcastPlatform", "CCurl"]),

        // All behaviour: search, feeds, downloads, the state store. Never prints.
        .target(
            name: "PodcastKit",
            dependencies: ["PodcastHTTP", "PodcastPlatform", "PodcastText", "PodcastTOML", "CCurl", "CFileSystem", "CLibXML2", "CSQLite", "CTagLib"]
        ),
        // The command line: argument parsing, rendering, exit codes.
        .executableTarget(
            name: "podcast",
            dependencies: [
                "PodcastHTTP",
                "PodcastKit",
                "PodcastPlatform",
                "PodcastText",
                "CTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Loopback HTTP server and helpers shared by tests and the demo.
        .target(name: "PodcastTestSupport", dependencies: ["PodcastHTTP", "PodcastKit", "PodcastPlatform", "CInstructionCounter", "CTerminal"]),
        // Serves an iTunes-like API, a feed and generated audio on 127.0.0.1 for `make demo`.
        .executableTarget(name: "podcast-demo-server", dependencies: ["PodcastTestSupport"]),
        // Drives the state store from a separate process, for the two-process store test.
        .executableTarget(name: "podcast-store-probe", dependencies: ["PodcastKit"]),

        .testTarget(
            name: "PodcastKitTests",
            dependencies: [
                "CCurl", "PodcastHTTP", "PodcastKit", "PodcastPlatform", "PodcastText", "PodcastTOML", "PodcastTestSupport",
            ]
        ),
        .testTarget(
            name: "PodcastCLITests",
            dependencies: [
                "PodcastPlatform", "PodcastText", "PodcastTestSupport", "podcast", "podcast-store-probe", "podcast-demo-server",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `make fuzz` only (PODCAST_FUZZ=1): a libFuzzer target for the feed parser. It needs libFuzzer's
// runtime, which only -sanitize=fuzzer links, so an ordinary build could not link it.
if Context.environment["PODCAST_FUZZ"] == "1" {
    package.targets += [
        // libFuzzer's driver entry point, declared for Swift (header only).
        .systemLibrary(name: "CLibFuzzer"),
        .executableTarget(name: "podcast-fuzz-feed", dependencies: ["CLibFuzzer", "PodcastKit"]),
    ]
}
