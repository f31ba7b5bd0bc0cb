import FoundationEssentials

/// The settings records earlier versions wrote, turned into `StoredSettings` once, by the schema
/// step that brought them in: batches and updates kept a JSON object of optional fields (before
/// that, the command line's arguments), download records `key=value` lines. A record that is none
/// of these stays as it is, and reading it is an error that names it.
enum LegacySettingsRecords {
    /// A batch's or update's record (`batches.options`, `update_requests.settings`) in the
    /// current form, or nil when `text` is none of the earlier forms.
    static func queued(_ text: String) -> String? {
        let data = Data(text.utf8)
        if let fields = try? JSONDecoder().decode(QueuedFields.self, from: data) {
            return StoredSettings(values: fields.values, secretsFile: fields.headersFile).text
        }
        if let arguments = try? JSONDecoder().decode([String].self, from: data) {
            // Of the arguments only `--episodes-dir` was ever read: the episodes go on where their
            // partial files are.
            var values: [String: SettingValue] = [:]
            if let flag = arguments.firstIndex(of: "--episodes-dir"), flag + 1 < arguments.count {
                values["episodes-dir"] = .text(arguments[flag + 1])
            }
            return StoredSettings(values: values, secretsFile: nil).text
        }
        return nil
    }

    /// A download record's library settings (`downloads.library`) in the current form, or nil
    /// when a line is not one the earlier form wrote.
    static func library(_ text: String) -> String? {
        var values: [String: SettingValue] = [:]
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            switch pair[0] {
            case "template": values["name-template"] = .text(pair[1])
            case "portable": values["portable-names"] = .boolean(pair[1] == "1")
            case "with": values["with"] = .list([pair[1]])
            case "transcripts": values["transcript-types"] = .list([pair[1]])
            case "tag": values["tag"] = .boolean(pair[1] == "1")
            case "playlist": values["playlist"] = .boolean(pair[1] == "1")
            default: return nil
            }
        }
        return StoredSettings(values: values, secretsFile: nil).text
    }

    /// A finished batch's record (`batches.options`) without the proxy it was queued with, or
    /// nil when it holds none (or is no record this version reads, left as it is). Versions
    /// before proxies went to the batch's secrets file (`BatchSecrets`) kept the proxy's URL,
    /// password included, in the record; once the batch has finished nothing reads it.
    static func withoutProxy(_ text: String) -> String? {
        guard var record = try? StoredSettings(stored: text), let proxy = record.settings["proxy"], proxy != .none else { return nil }
        record.settings["proxy"] = SettingValue.none
        return record.text
    }

    /// The fields of the earlier JSON record, each optional (a version that lacked one left it out).
    private struct QueuedFields: Decodable {
        var episodesDirectory: String?
        var concurrency: Int64?
        var connectionsPerHost: Int64?
        var rateLimit: Int64?
        var maxEpisodeSize: Int64?
        var userAgent: String?
        var connectTimeout: Int64?
        var stallTimeout: Int64?
        var allowsInsecureRedirects: Bool?
        var certificateAuthorities: String?
        var headerHosts: [String]?
        var proxy: String?
        var cookies: Bool?
        var headersFile: String?
        var retries: Int64?
        var firstWaitSeconds: Double?
        var budgetSeconds: Double?
        var nameTemplate: String?
        var portableNames: Bool?
        var companions: [String]?
        var transcriptTypes: [String]?
        var tag: Bool?
        var playlist: Bool?
        var feedTimeoutSeconds: Double?

        /// The fields under the schema's keys. `stallSpeed`, `maxRedirects` and
        /// `longestWaitSeconds` were never settings: they go.
        var values: [String: SettingValue] {
            let pairs: [(String, SettingValue?)] = [
                ("episodes-dir", episodesDirectory.map(SettingValue.text)), ("concurrency", concurrency.map(SettingValue.integer)),
                ("max-per-host", connectionsPerHost.map(SettingValue.integer)), ("limit-rate", rateLimit.map(SettingValue.integer)),
                ("max-episode-size", maxEpisodeSize.map(SettingValue.integer)), ("user-agent", userAgent.map(SettingValue.text)),
                ("connect-timeout", connectTimeout.map(SettingValue.integer)), ("stall-timeout", stallTimeout.map(SettingValue.integer)),
                ("allow-insecure-redirects", allowsInsecureRedirects.map(SettingValue.boolean)),
                ("ca-file", certificateAuthorities.map(SettingValue.text)), ("header-hosts", headerHosts.map(SettingValue.list)),
                ("proxy", proxy.map(SettingValue.text)), ("cookies", cookies.map(SettingValue.boolean)),
                ("retries", retries.map(SettingValue.integer)), ("retry-wait", firstWaitSeconds.map(SettingValue.number)),
                ("retry-budget", budgetSeconds.map(SettingValue.number)), ("name-template", nameTemplate.map(SettingValue.text)),
                ("portable-names", portableNames.map(SettingValue.boolean)), ("with", companions.map(SettingValue.list)),
                ("transcript-types", transcriptTypes.map(SettingValue.list)), ("tag", tag.map(SettingValue.boolean)),
                ("playlist", playlist.map(SettingValue.boolean)), ("feed-timeout", feedTimeoutSeconds.map(SettingValue.number)),
            ]
            return Dictionary(uniqueKeysWithValues: pairs.compactMap { key, value in value.map { (key, $0) } })
        }
    }

    /// Rewrites `column` of `table` where it holds an earlier record (`convert` returns its new text).
    static func rewrite(
        _ table: String, _ column: String, where condition: String = "1", with convert: (String) -> String?, in connection: SQLiteConnection
    ) throws(SQLiteError) {
        let rows = try connection.prepare("SELECT rowid, \(column) FROM \(table) WHERE \(column) IS NOT NULL AND (\(condition))")
        let found = try rows.rows { row throws(SQLiteError) in (try row.int64(at: 0), try row.string(at: 1)) }
        let update = try connection.prepare("UPDATE \(table) SET \(column) = ?1 WHERE rowid = ?2")
        for (rowid, text) in found {
            guard let converted = convert(text) else { continue }
            try update.bind(converted, at: 1)
            try update.bind(rowid, at: 2)
            try update.run()
            try update.reset()
        }
    }
}
