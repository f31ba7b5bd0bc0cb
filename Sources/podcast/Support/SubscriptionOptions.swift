import ArgumentParser
import PodcastKit

/// The per-subscription settings `subscribe` and `import` take; only those given change an
/// existing subscription.
struct SubscriptionOptions: ParsableArguments {
    @Option(help: "How many of the newest episodes the first update downloads (0: none of the back catalogue; default 1).")
    var first: Int?

    @Option(help: ArgumentHelp(
        "After each update, keep only the newest N of the files its updates downloaded (never one you downloaded by hand; default: keep all).",
        valueName: "N"))
    var keep: Int?

    @Flag(help: "Keep every file again (undoes --keep).")
    var keepAll = false

    @Option(help: "Where its episodes go instead of the Episodes directory.", completion: .directory)
    var episodesDir: String?

    @Option(help: "How its finished files are named, e.g. '{podcast}/{date} {title}.{ext}' (see podcast download --help).")
    var nameTemplate: String?

    @Option(help: ArgumentHelp(
        "The companion files kept beside its episodes: transcript, chapters, image, info (comma-separated; '' for none).",
        valueName: "files"))
    var with: String?

    @Flag(inversion: .prefixedNo, help: "Whether update downloads its new episodes (--no-download: only mark them new).")
    var download: Bool?

    @Option(help: ArgumentHelp(
        "A command run by /bin/sh after each of its episodes is placed, in place of the run's --on-episode ('' for the run's again; ':' for none).",
        valueName: "command"))
    var onEpisode: String?

    /// The settings of the schema these options give (`--name-template`, `--with`, a command of
    /// `--on-episode`), read as the file's would be. `--on-episode ''` is no command but the way
    /// back to the run's.
    private var given: [GivenSetting] {
        [("name-template", nameTemplate), ("with", with), ("on-episode", onEpisode == "" ? nil : onEpisode)].compactMap { key, text in
            text.map { GivenSetting(key, text: $0) }
        }
    }

    func validate() throws {
        if let first, first < 0 { throw ValidationError("--first must be 0 or more, not \(first)") }
        if let keep, keep < 1 { throw ValidationError("--keep must be 1 or more, not \(keep); --keep-all keeps every file") }
        if keep != nil && keepAll { throw ValidationError("--keep and --keep-all contradict each other; give one") }
        if let episodesDir, episodesDir.isEmpty { throw ValidationError("--episodes-dir needs a directory, not an empty string") }
        if let onEpisode, !onEpisode.isEmpty, onEpisode.allSatisfy(\.isWhitespace) {
            throw ValidationError("--on-episode needs a command; '' gives the subscription the run's command again, ':' none")
        }
        try GivenSetting.validate(given)
    }

    /// The change these options make, with the Episodes directory made absolute.
    func change(environment: [String: String]) throws -> SubscriptionSettingsChange {
        var read = ResolvedSettings.scratch
        for setting in given { try read.apply(setting.value, to: setting.key, flag: setting.flag) }
        return SubscriptionSettingsChange(
            first: first, keep: keepAll ? .some(nil) : keep.map { .some($0) },
            episodesDirectory: episodesDir.map { TransferOptions.absolute($0, environment: environment) },
            nameTemplate: nameTemplate == nil ? nil : read.settings.library.nameTemplate, noDownload: download.map { !$0 },
            companions: with == nil ? nil : read.settings.library.companions,
            onEpisode: onEpisode.map { $0.isEmpty ? nil : read.settings.library.onEpisode })
    }
}
