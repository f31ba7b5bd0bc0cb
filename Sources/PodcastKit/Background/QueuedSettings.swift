import PodcastHTTP

/// What a background batch or update records of the settings it was queued with, as the
/// `batches.options` and `update_requests.settings` columns hold them (`StoredSettings`): every
/// setting the schema says a batch keeps, resolved, except its secrets (the headers' values, the
/// proxy, which may carry a password, and the credentials of feed addresses given for the run),
/// which stay in a private file (`BatchSecrets`) this names.
public struct QueuedSettings: Sendable, Equatable {
    /// The settings, without the secrets.
    public private(set) var settings: Settings
    /// The `BatchSecrets` file with the secrets; nil when the work has none.
    public private(set) var secretsFile: String?

    /// The record of `settings`, whose secrets (if any, `BatchSecrets.Contents(of:)`) are kept in `secretsFile`.
    public init(_ settings: Settings, secretsFile: String?) {
        self.settings = settings
        self.settings.http.headers.fields = []
        self.settings.http.proxy = nil
        self.settings.http.credentials = URLCredentials()
        self.secretsFile = BatchSecrets.Contents(of: settings) == nil ? nil : secretsFile
        if settings.http.headers.isEmpty || self.secretsFile == nil { self.settings.http.headers.hosts = [] }
    }

    /// How long an update's feeds may take.
    public var feedDeadlines: FeedDeadlines { settings.feedDeadlines }

    /// The settings recorded, with `secrets` (read from `secretsFile`; nil when it names none).
    /// `fallbackDirectory` stands in for a record that names no Episodes directory.
    public func settings(secrets: BatchSecrets.Contents?, fallbackDirectory: String) -> DownloadSettings {
        var settings = settings
        settings.http.headers.fields = secrets?.headers ?? []
        // A record from before proxies were secrets still holds its proxy.
        settings.http.proxy = secrets?.proxy ?? settings.http.proxy
        settings.http.credentials = secrets?.credentials ?? URLCredentials()
        return settings.download(defaultEpisodesDirectory: fallbackDirectory)
    }

    /// The column's text, the same text for the same settings.
    var stored: String {
        StoredSettings(settings, for: .batch, secretsFile: secretsFile).text
    }

    /// The record in `text`; one this version cannot read is an error (`StoredSettingsError`).
    init(stored text: String) throws(StoredSettingsError) {
        let record = try StoredSettings(stored: text)
        settings = try record.settings(for: .batch)
        secretsFile = record.secretsFile
    }
}
