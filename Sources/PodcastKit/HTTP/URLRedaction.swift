/// Deprecated: the per-message redaction that came before `SecretRedactor` ran at the output
/// boundary, now a thin forwarder to it for the feed and transfer code that still calls it (no
/// `@available(deprecated)`, so those files build without warnings meanwhile). To be removed
/// once FeedFetcher/FeedRound callers are gone; new code uses the URL itself.
public enum URLRedaction {
    /// What is shown in place of a secret.
    public static let mask = SecretRedactor.mask

    /// `url` with its secrets masked.
    public static func redacted(_ url: String) -> String {
        SecretRedactor.redacted(url)
    }

    /// `text` with the secrets of every URL in it masked.
    public static func redactedText(_ text: String) -> String {
        SecretRedactor.redacted(text)
    }
}
