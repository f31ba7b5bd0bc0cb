import PodcastHTTP

/// Apple's catalogue as one of the directories: the default, and the only one with songs.
extension ITunesCatalog: PodcastDirectory {
    public static let info = SearchDirectoryInfo(
        name: "itunes", title: "iTunes", defaultBaseURL: defaultBaseURL, baseURLVariable: "PODCAST_ITUNES_URL",
        refusalAdvice: "check --country and --media")

    /// The catalogue needs no key.
    public init(baseURL: String, http: HTTPClient, settings: Settings) throws(DirectorySetupError) {
        self.init(baseURL: baseURL, http: http)
    }
}
