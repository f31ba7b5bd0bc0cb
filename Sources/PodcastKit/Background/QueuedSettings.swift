/// What a background batch or update records of the settings it was queued with, as the
/// `batches.options` and `update_requests.settings` columns hold them (`StoredSettings`): every
/// setting the schema says a batch keeps, resolved, except the values of the user's headers,
/// which may be secrets and stay in a private file (`BatchHeaders`) this names.
public struct QueuedSettings: Sendable, Equatable {
    /// The settings, without the header values.
    public private(set) var settings: Settings
    /// The `BatchHeaders` file with the header values; nil when the batch sends none.
    public private(set) var headersFile: String?

    /// The record of `settings`, whose headers (if any) are kept in `headersFile`.
    public init(_ settings: Settings, headersFile: String?) {
        self.settings = settings
        self.settings.http.headers.fields = []
        self.headersFile = settings.http.headers.isEmpty ? nil : headersFile
        if self.headersFile == nil { self.settings.http.headers.hosts = [] }
    }

    /// How long an update's feeds may take.
    public var feedDeadlines: FeedDeadlines { settings.feedDeadlines }

    /// The settings recorded, with `headers` (read from `headersFile`) as the headers' values.
    /// `fallbackDirectory` stands in for a record that names no Episodes directory.
    public func settings(headers: [String], fallbackDirectory: String) -> DownloadSettings {
        var settings = settings
        settings.http.headers.fields = headers
        return settings.download(defaultEpisodesDirectory: fallbackDirectory)
    }

    /// The column's text, the same text for the same settings.
    var stored: String {
        StoredSettings(settings, for: .batch, headersFile: headersFile).text
    }

    /// The record in `text`; one this version cannot read is an error (`StoredSettingsError`).
    init(stored text: String) throws(StoredSettingsError) {
        let record = try StoredSettings(stored: text)
        settings = try record.settings(for: .batch)
        headersFile = record.headersFile
    }
}
