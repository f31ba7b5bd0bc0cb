import Glibc
import PodcastHTTP
import PodcastText

/// Every setting, once: the table the configuration file, the command-line options' help,
/// `podcast config`, the manual and the records of batches and downloads are read from.
public enum SettingsSchema {
    /// The settings, in the order `podcast config` and the manual list them.
    public static let all: [SettingDefinition] = [
        SettingDefinition(
            "country", .search, \.country,
            .text("a two-letter store code such as \"GB\"") { (code) throws(SettingProblem) -> String in
                guard SearchQuery.isValidCountry(code) else { throw .notTaken }
                return code.uppercased()
            },
            flag: "--country", "The iTunes store country searches use."),
        SettingDefinition(
            "podcastindex-key", .search, \.podcastIndexKey, .optionalText("the API key podcastindex.org gives", Self.credential),
            defaultText: "none", "Your Podcast Index API key, for search --directory podcastindex (free at https://api.podcastindex.org)."),
        SettingDefinition(
            "podcastindex-secret", .search, \.podcastIndexSecret, .optionalText("the API secret podcastindex.org gives", Self.credential),
            secret: true, defaultText: "none",
            "The secret that goes with podcastindex-key: it signs each request and is never sent, shown or stored."),
        SettingDefinition(
            "concurrency", .download, \.engine.concurrency, .whole(1...16), flag: "--concurrency", records: .batch,
            "Episodes downloaded at once."),
        SettingDefinition(
            "max-per-host", .download, \.engine.connectionsPerHost, .whole(1...16), flag: "--max-per-host", records: .batch,
            "Connections to one host at once."),
        SettingDefinition(
            "episodes-dir", .download, \.episodesDirectory,
            .optionalText("a path") { (directory) throws(SettingProblem) in
                guard !directory.trimmingWhitespace().isEmpty else {
                    throw SettingProblem(detail: "is empty; give a folder such as ~/Podcasts, or leave it out for the default")
                }
            },
            flag: "--episodes-dir", environment: "PODCAST_EPISODES_DIR", records: [.batch, .subscription],
            defaultText: "$PODCAST_HOME/Episodes", "Where finished episodes go."),
        SettingDefinition(
            "limit-rate", .download, \.engine.rateLimit, .rate, flag: "--limit-rate", records: .batch, defaultText: "no cap",
            "Caps the whole run's speed, in bytes per second (k, M and G are binary units, as shown)."),
        SettingDefinition(
            "max-episode-size", .download, \.engine.maxEpisodeSize, .size, flag: "--max-size", records: .batch,
            "Stops an episode whose file grows past this size."),
        SettingDefinition(
            "min-free-space", .download, \.engine.minFreeSpace, .size, flag: "--min-free-space", records: .batch,
            "Room left free on the Episodes file system: an episode that would leave less, by the feed's or the server's size and with the downloads running, waits, paused."),
        SettingDefinition(
            "on-episode", .download, \.library.onEpisode,
            .optionalText("a shell command") { (command) throws(SettingProblem) in
                guard !command.trimmingWhitespace().isEmpty else { throw SettingProblem(detail: "is empty; give a command, or leave it out") }
            },
            flag: "--on-episode", records: [.batch, .download], defaultText: "none",
            "A command run by /bin/sh after each episode is placed, with PODCAST_FILE, PODCAST_TITLE, PODCAST_PODCAST, PODCAST_GUID, "
                + "PODCAST_FEED and PODCAST_DATE in its environment."),
        SettingDefinition(
            "retries", .download, \.retry.retries, .whole(1...Int(Int32.max)), flag: "--retries", records: .batch,
            "Attempts in a row without progress before an episode fails."),
        SettingDefinition(
            "retry-wait", .download, \.retry.firstWait, .seconds(0...86_400, example: "2 or 0.5"), records: .batch,
            "Seconds before the first retry of a busy or unreachable server (doubling after)."),
        SettingDefinition(
            "retry-budget", .download, \.retry.budget, .seconds(0...86_400, example: "1800"), records: .batch,
            "Seconds one episode may spend retrying before it fails."),
        SettingDefinition(
            "user-agent", .http, \.http.userAgent, .text("a string"), flag: "--user-agent", records: .batch,
            defaultText: "\"podcast/<version>\"", "Sent as User-Agent."),
        SettingDefinition(
            "connect-timeout", .http, \.http.connectTimeout, .whole(1...600, unit: "seconds"), records: .batch,
            "Seconds allowed to connect."),
        SettingDefinition(
            "stall-timeout", .http, \.http.stallTimeout, .whole(1...Int(Int32.max), unit: "seconds"), flag: "--stall-timeout", records: .batch,
            "A transfer under 1 KiB/s for this many seconds has stalled; it continues from where it stopped."),
        SettingDefinition(
            "headers", .http, \.http.headers.fields,
            .list("a list of quoted 'Name: value' strings, such as [\"X-Api-Key: abc\"]") { (field) throws(SettingProblem) in
                if let problem = RequestHeaders.problem(with: field) { throw SettingProblem(detail: problem) }
            },
            flag: "--header", records: .batch, secret: true, defaultText: "none",
            "Extra request headers, 'Name: value', sent to the server each download starts at (never past a redirect to another); "
                + "their values are never shown or stored."),
        SettingDefinition(
            "header-hosts", .http, \.http.headers.hosts,
            .list("a list of quoted host names, such as [\"cdn.example.com\"]") { (host) throws(SettingProblem) in
                guard RequestHeaders.isHostName(host) else { throw SettingProblem(detail: "takes host names such as \"cdn.example.com\", not \"\(host)\"") }
            },
            flag: "--header-host", records: .batch, defaultText: "none",
            "Send the headers to these hosts and their subdomains only, for every request (feeds too), also after redirects."),
        SettingDefinition(
            "proxy", .http, \.http.proxy,
            .optionalText("a URL such as http://proxy.example:3128 or socks5h://127.0.0.1:1080") { (address) throws(SettingProblem) in
                guard address.contains("://") || !address.contains("/") else { throw .notTaken }
            },
            flag: "--proxy", records: .batch, defaultText: "none, or http_proxy/https_proxy/all_proxy",
            "Send every request through this proxy; a proxy in the environment wins over the file's."),
        SettingDefinition(
            "cookies", .http, \.http.cookies, .boolean, records: .batch,
            "Keep the cookies servers set, in memory, for the rest of the run."),
        SettingDefinition(
            "allow-insecure-redirects", .http, \.http.allowsInsecureRedirects, .boolean, flag: "--allow-insecure-redirects", records: .batch,
            "Follow redirects from https to plain http."),
        SettingDefinition(
            "ca-file", .http, \.http.certificateAuthorities,
            .optionalText("the path of a PEM file", present: { (file) throws(SettingProblem) in
                guard let file, access(file, R_OK) != 0 else { return }
                throw SettingProblem(detail: "\"\(file)\" cannot be read; give a readable PEM file")
            }),
            records: .batch, defaultText: "the system's", "Trust these certificate authorities instead of the system's (a private server)."),
        SettingDefinition(
            "name-template", .library, \.library.nameTemplate, .nameTemplate, flag: "--name-template",
            records: [.batch, .subscription, .download],
            "How finished files are named, with {podcast} {title} {date} {year} {month} {day} {episode} {season} {guid} {ext}; / makes folders."),
        SettingDefinition(
            "portable-names", .library, \.library.portableNames, .boolean, flag: "--portable-names", records: [.batch, .download],
            "Also replace in names what FAT, exFAT and SMB refuse: quotes, * : < > ? | and backslashes."),
        SettingDefinition(
            "with", .library, \.library.companions, .companions, flag: "--with", records: [.batch, .subscription, .download],
            defaultText: "none", "Companion files kept beside each episode: transcript, chapters, image, info."),
        SettingDefinition(
            "transcript-types", .library, \.library.transcriptTypes, .transcriptTypes, flag: "--transcript-types",
            records: [.batch, .download], "Which transcript to prefer, in order."),
        SettingDefinition(
            "tag", .library, \.library.tag, .boolean, flag: "--tag", records: [.batch, .download],
            "Write title, album, artist, year, track, genre and description tags into finished files (MP3, M4A, Ogg, Opus, FLAC)."),
        SettingDefinition(
            "playlist", .library, \.library.playlist, .boolean, flag: "--playlist", records: [.batch, .download],
            "Write an M3U8 playlist per podcast (newest first, relative paths) after each run."),
        SettingDefinition(
            "feed-timeout", .update, \.feedTimeout, .seconds(1...86_400, example: "120 or 30"), flag: "--feed-timeout", records: .batch,
            "The most one feed may take in an update, in seconds (a silent host is given up on sooner)."),
    ]

    /// An API key or secret: one line of visible ASCII, since it goes into a header (the key) or
    /// a signature (the secret), where a space or a line break would be a different credential.
    private static func credential(_ text: String) throws(SettingProblem) {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw SettingProblem(detail: "must be the credential as podcastindex.org gives it: letters, digits and symbols, no spaces")
        }
    }

    /// The setting with `key` (dashes; underscores read as dashes), if any.
    public static func setting(_ key: String) -> SettingDefinition? {
        let key = key.replacing("_", with: "-")
        return all.first { $0.key == key }
    }

    /// The settings of `section`.
    public static func settings(in section: SettingSection) -> [SettingDefinition] {
        all.filter { $0.section == section }
    }

    /// The known key or section name nearest to `word` when `word` is likely a typo of it.
    static func closest(to word: String, among names: [String]) -> String? {
        EditDistance.closest(to: word, among: names)
    }

    /// The setting `word` likely means: a key it is a typo of, or the key of the flag it names
    /// (`max-size` is `max-episode-size`).
    static func meant(by word: String) -> String? {
        if let flagged = all.first(where: { $0.flag == "--" + word }) { return flagged.key }
        return closest(to: word, among: all.map(\.key))
    }
}
