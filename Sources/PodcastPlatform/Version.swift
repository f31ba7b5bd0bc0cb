/// The version reported by `podcast --version` and sent in `User-Agent`.
public let podcastVersion = "0.1.0"
