import ArgumentParser

/// The output choice every command shares.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON document on stdout instead of text; messages stay on stderr.")
    var json = false
}
