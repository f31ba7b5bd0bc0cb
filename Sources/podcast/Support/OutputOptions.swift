import ArgumentParser

/// When messages are coloured: `auto` (a colour terminal without NO_COLOR), `always` or `never`.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
}

/// The output choices every command shares: JSON, how much is said, and colour.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON document on stdout instead of text; messages stay on stderr.")
    var json = false

    @Flag(name: .shortAndLong, help: "Say only what went wrong: errors and warnings, no progress, notes or summaries.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Also show each HTTP request and answer, and every retry decision, on stderr.")
    var verbose = false

    @Option(help: "Colour errors, warnings and finished downloads: auto (on a colour terminal, unless NO_COLOR is set), always or never.")
    var color = ColorChoice.auto

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose ask for opposite things; give one of them") }
    }
}

/// A command that takes the shared `OutputOptions`, so the output style is set before it runs.
protocol OutputConfigured {
    /// The command's output options.
    var output: OutputOptions { get }
}
