import ArgumentParser

/// `--background` and `--on-complete` of `download` and `resume`.
struct BackgroundOptions: ParsableArguments {
    @Flag(help: "Hand the downloads to a detached background worker and return at once; watch with `podcast status --watch`.")
    var background = false

    @Option(help: ArgumentHelp(
        "With --background: a shell command run once when the whole batch has finished; PODCAST_SUMMARY holds the path of its JSON summary.",
        valueName: "command"))
    var onComplete: String?

    func validate() throws {
        if onComplete != nil && !background {
            throw ValidationError("--on-complete runs when a background batch finishes; use it with --background")
        }
    }
}
