/// How one episode's files are made: where its media goes (the Episodes directory, the name
/// template and its values) and what goes with it (companions, tags), with what its feed says
/// about it when a setting needs that.
struct EpisodeFiling {
    /// The Episodes directory it goes into.
    let directory: String
    /// The settings it was asked with.
    let settings: LibrarySettings
    /// Its name template's values.
    let values: NameValues
    /// The show as the feed describes it, when a setting needs that and the feed could be read.
    let show: Feed?
    /// The episode as the feed describes it, likewise.
    let episode: Episode?

    /// Its name, with `suffix` (` (2)`…) telling it apart from another episode's.
    func name(suffix: String = "") -> RenderedName {
        settings.nameTemplate.render(values, suffix: suffix, portable: settings.portableNames)
    }

    /// The absolute path of `name`'s media file.
    func path(of name: RenderedName) -> String {
        folder(of: name) + "/" + name.fileName
    }

    /// The absolute path of the folder `name` goes into.
    func folder(of name: RenderedName) -> String {
        name.folders.isEmpty ? directory : directory + "/" + name.relativeFolder
    }

    /// The podcast's own folder (the template's folders up to the last that names `{podcast}`),
    /// where its cover and playlist go; nil when the template gives the podcast no folder.
    var podcastFolder: String? {
        let name = name()
        guard let count = name.podcastFolderCount else { return nil }
        return ([directory] + name.folders.prefix(count)).joined(separator: "/")
    }
}
