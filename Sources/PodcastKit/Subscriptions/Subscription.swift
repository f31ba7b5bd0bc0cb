import FoundationEssentials
import PodcastText

/// A feed that `podcast update` keeps downloading, with its settings and what became of its last
/// update. One podcast is one subscription, whichever of its addresses (before and after a move)
/// it is named by.
public struct Subscription: Sendable, Equatable {
    /// How the last update of a feed ended.
    public enum Result: String, Sendable, CaseIterable {
        /// Fetched and parsed: its episodes were looked at for new ones.
        case updated
        /// The server said 304, or sent the same bytes as last time: nothing to look at.
        case unchanged
        /// It moved (a permanent redirect or `itunes:new-feed-url`), and was read at its new address.
        case moved
        /// The server answered 410 Gone: it is not fetched again.
        case gone
        /// It could not be fetched or parsed.
        case failed
    }

    /// Its number in the store (stable; `podcast subscriptions` numbers them 1…n by title).
    public var id: Int
    /// Where the feed lives now.
    public var url: String
    /// The feed's title (from its last fetch, or from an imported OPML until then).
    public var title: String
    /// The podcast's web page, when known.
    public var htmlURL: String?
    /// Its settings.
    public var settings: SubscriptionSettings
    /// True once the feed answered 410 Gone: skipped by `update`.
    public var isGone: Bool
    /// True once the first fetch after subscribing set its baseline.
    public var hasBaseline: Bool
    /// When it was last updated.
    public var lastUpdate: Date?
    /// How its last update ended.
    public var lastResult: Result?
    /// Why its last update failed, one line.
    public var lastError: String?

    /// Creates a subscription value.
    public init(
        id: Int, url: String, title: String, htmlURL: String? = nil, settings: SubscriptionSettings = .init(),
        isGone: Bool = false, hasBaseline: Bool = false, lastUpdate: Date? = nil, lastResult: Result? = nil, lastError: String? = nil
    ) {
        self.id = id
        self.url = url
        self.title = title
        self.htmlURL = htmlURL
        self.settings = settings
        self.isGone = isGone
        self.hasBaseline = hasBaseline
        self.lastUpdate = lastUpdate
        self.lastResult = lastResult
        self.lastError = lastError
    }
}

extension Subscription {
    /// The most of a title a subscription keeps, in UTF-8 bytes: a name to read in a list, where
    /// a feed's text may run to 512 KiB and an OPML file's to megabytes (each export writes it
    /// twice, and a list of them would outgrow what `import` reads).
    public static let maxTitleBytes = 1024

    /// `title` as a subscription keeps it: line breaks and tabs as spaces and other control
    /// characters (and U+FFFE, U+FFFF) dropped, as an OPML export must write it (XML 1.0 has no
    /// other way to carry them), white space trimmed at both ends, as an import reads an
    /// attribute, and cut to `maxTitleBytes` at a character's end. So export then import gives
    /// back the same title; nil when nothing is left.
    public static func keptTitle(_ title: String) -> String? {
        var kept = ""
        for scalar in title.unicodeScalars {
            let character: Unicode.Scalar
            switch scalar {
            case "\t", "\n", "\r": character = " "
            case "\u{FFFE}", "\u{FFFF}": continue
            case _ where scalar.properties.generalCategory == .control: continue
            default: character = scalar
            }
            // Leading white space is trimmed anyway; what follows the cap (with room for the
            // trimming) is never read.
            if kept.isEmpty, character.properties.isWhitespace { continue }
            kept.unicodeScalars.append(character)
            if kept.utf8.count > 2 * maxTitleBytes { break }
        }
        var cut = Substring(kept.trimmingWhitespace())
        while cut.utf8.count > maxTitleBytes { cut = cut.dropLast() }
        let result = cut.trimmingWhitespace()
        return result.isEmpty ? nil : result
    }

    /// The subscription as an update that names it fetches it: a gone one (410) too, since the
    /// user asked for it by name (a plain `update` keeps skipping it with a warning). Whether it
    /// is still gone is the fetch's answer to record.
    public var namedForUpdate: Subscription {
        var named = self
        named.isGone = false
        return named
    }
}

/// The per-subscription settings `subscribe` and `import` take.
public struct SubscriptionSettings: Sendable, Equatable {
    /// How many of the newest episodes of the baseline `update` downloads (0: none of the back catalogue).
    public var first: Int
    /// After an update, keep only the newest N of the files podcast downloaded for it; nil keeps all.
    public var keep: Int?
    /// Where its episodes go instead of the Episodes directory.
    public var episodesDirectory: String?
    /// How its finished files are named; nil: the run's (`--name-template`, `name-template`).
    public var nameTemplate: NameTemplate?
    /// True when `update` marks new episodes but downloads none.
    public var noDownload: Bool
    /// The companion files kept beside its episodes; nil: the run's (`--with`, `with`).
    public var companions: Set<Companion>?
    /// The command run after each of its episodes is placed, in place of the run's; nil: the
    /// run's (`--on-episode`, `on-episode`). A subscription that wants none where the run has
    /// one says `:`, the shell's command that does nothing: one rule, no second kind of value.
    public var onEpisode: String?

    /// The defaults: the newest episode, keep everything, the Episodes directory, the default names,
    /// downloads on, the run's hook.
    public init(
        first: Int = 1, keep: Int? = nil, episodesDirectory: String? = nil, nameTemplate: NameTemplate? = nil, noDownload: Bool = false,
        companions: Set<Companion>? = nil, onEpisode: String? = nil
    ) {
        self.first = first
        self.keep = keep
        self.episodesDirectory = episodesDirectory
        self.nameTemplate = nameTemplate
        self.noDownload = noDownload
        self.companions = companions
        self.onEpisode = onEpisode
    }

    /// The run's library settings with this subscription's own template, companions and hook in
    /// place of the run's; nil when it has none of them (its episodes take the run's).
    public func library(over run: LibrarySettings) -> LibrarySettings? {
        guard nameTemplate != nil || companions != nil || onEpisode != nil else { return nil }
        var settings = run
        if let nameTemplate { settings.nameTemplate = nameTemplate }
        if let companions { settings.companions = companions }
        if let onEpisode { settings.onEpisode = onEpisode }
        return settings
    }
}

/// The settings a `subscribe` or `import` command gives: only those it names change an existing
/// subscription.
public struct SubscriptionSettingsChange: Sendable, Equatable {
    /// `--first`.
    public var first: Int?
    /// `--keep` (`.some(nil)`: keep all).
    public var keep: Int??
    /// `--episodes-dir`.
    public var episodesDirectory: String?
    /// `--name-template`.
    public var nameTemplate: NameTemplate?
    /// `--no-download` / `--download`.
    public var noDownload: Bool?
    /// `--with`.
    public var companions: Set<Companion>?
    /// `--on-episode` (`.some(nil)`: `--on-episode ''`, the run's hook again).
    public var onEpisode: String??

    /// A change of the settings given; nil leaves a setting as it is.
    public init(
        first: Int? = nil, keep: Int?? = nil, episodesDirectory: String? = nil, nameTemplate: NameTemplate? = nil, noDownload: Bool? = nil,
        companions: Set<Companion>? = nil, onEpisode: String?? = nil
    ) {
        self.first = first
        self.keep = keep
        self.episodesDirectory = episodesDirectory
        self.nameTemplate = nameTemplate
        self.noDownload = noDownload
        self.companions = companions
        self.onEpisode = onEpisode
    }

    /// True when it changes nothing.
    public var isEmpty: Bool {
        first == nil && keep == nil && episodesDirectory == nil && nameTemplate == nil && noDownload == nil && companions == nil
            && onEpisode == nil
    }

    /// `settings` with this change applied.
    public func applied(to settings: SubscriptionSettings) -> SubscriptionSettings {
        var result = settings
        if let first { result.first = first }
        if let keep { result.keep = keep }
        if let episodesDirectory { result.episodesDirectory = episodesDirectory }
        if let nameTemplate { result.nameTemplate = nameTemplate }
        if let noDownload { result.noDownload = noDownload }
        if let companions { result.companions = companions }
        if let onEpisode { result.onEpisode = onEpisode }
        return result
    }
}
