import ArgumentParser
import FoundationEssentials
import PodcastKit

/// The options of every command that downloads (`download`, `resume`, `update`, `config`); each
/// sets a setting of the schema (`SettingsSchema`), whose help, check and default it takes.
struct TransferOptions: ParsableArguments {
    @Option(help: .setting("concurrency", valueName: "n"))
    var concurrency: String?

    @Option(help: .setting("episodes-dir", valueName: "directory"), completion: .directory)
    var episodesDir: String?

    @Option(help: .setting("max-per-host", valueName: "n"))
    var maxPerHost: String?

    @Option(help: .setting("limit-rate", valueName: "speed"))
    var limitRate: String?

    @Option(help: .setting("max-episode-size", valueName: "size"))
    var maxSize: String?

    @Option(help: .setting("min-free-space", valueName: "size"))
    var minFreeSpace: String?

    @Option(help: .setting("on-episode", valueName: "command"))
    var onEpisode: String?

    @Option(help: .setting("stall-timeout", valueName: "seconds"))
    var stallTimeout: String?

    @Option(help: .setting("retries", valueName: "n"))
    var retries: String?

    @Option(help: .setting("user-agent", valueName: "text"))
    var userAgent: String?

    @Option(help: .setting("headers", valueName: "header"))
    var header: [String] = []

    @Option(help: .setting("header-hosts", valueName: "host"))
    var headerHost: [String] = []

    @Option(help: .setting("proxy", valueName: "url"))
    var proxy: String?

    @Flag(help: .setting("allow-insecure-redirects"))
    var allowInsecureRedirects = false

    @OptionGroup
    var library: LibraryOptions

    /// The settings these options give. Given `--header`s replace the file's `headers` and
    /// `header-hosts` both.
    var given: [GivenSetting] {
        var given = [
            ("concurrency", concurrency), ("episodes-dir", episodesDir), ("max-per-host", maxPerHost), ("limit-rate", limitRate),
            ("max-episode-size", maxSize), ("stall-timeout", stallTimeout), ("retries", retries), ("user-agent", userAgent),
            ("proxy", proxy), ("min-free-space", minFreeSpace), ("on-episode", onEpisode),
        ].compactMap { key, text in text.map { GivenSetting(key, text: $0) } }
        if !header.isEmpty {
            given.append(GivenSetting("headers", .list(header)))
            given.append(GivenSetting("header-hosts", .list(headerHost), givenBy: headerHost.isEmpty ? "--header" : nil))
        }
        if allowInsecureRedirects { given.append(GivenSetting("allow-insecure-redirects", .boolean(true))) }
        return given + library.given
    }

    func validate() throws {
        if !headerHost.isEmpty && header.isEmpty {
            throw ValidationError("--header-host names the hosts for --header; give the headers too")
        }
        try GivenSetting.validate(given)
    }

    /// The settings a download runs with: these options over the environment, the configuration
    /// file and the defaults.
    func settings(context: CommandContext) throws -> DownloadSettings {
        try context.settings(given).settings.download(defaultEpisodesDirectory: context.paths.episodesDirectory)
    }

    /// `path` with `~` expanded, made absolute and without `.` and `..` parts, so records name
    /// files that every later run, from any directory, can find, and messages show them plainly.
    static func absolute(_ path: String, environment: [String: String]) -> String {
        var expanded = path
        if expanded == "~" || expanded.hasPrefix("~/") {
            expanded = (environment["HOME"] ?? "") + expanded.dropFirst()
        }
        if !expanded.hasPrefix("/") { expanded = FileManager.default.currentDirectoryPath + "/" + expanded }
        var parts: [Substring] = []
        for part in expanded.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }
}
