import CLibFuzzer
import Glibc
import PodcastKit

/// `make fuzz`: hands libFuzzer's driver the feed parser to fuzz, with the command line libFuzzer
/// expects (corpus folders and `-flag=value` options).
///
/// The entry point is ours rather than libFuzzer's `main` because SwiftPM links every executable
/// with `--defsym main=podcast_fuzz_feed_main` (see CLibFuzzer/shim.h).
@main
enum FuzzFeed {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzz))
    }
}

/// The sizes the input is cut into, one full parse each: the whole input at once, pieces just
/// under the sniffer's 1 KiB window (so sniffing ends in the middle of a piece), and 7 bytes
/// (which splits UTF-8 and UTF-16 sequences, tags and entities at every possible place).
private let chunkSizes = [Int.max, 1000, 7]

/// One fuzz input: reads it as a feed, as `podcast episodes` would as the bytes arrive. It must
/// neither crash nor hang nor grow without bound, whatever the bytes. libFuzzer calls it on its
/// own thread, one input at a time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    for chunkSize in chunkSizes {
        let parser = FeedParser(url: "https://fuzz.example/feeds/show.xml")
        var offset = 0
        // Keeps feeding after `wantsMoreBytes` turns false: a caller that ignores it must be safe too.
        while offset < input.count {
            let end = offset + min(chunkSize, input.count - offset)
            parser.parse(UnsafeRawBufferPointer(rebasing: input[offset..<end]))
            offset = end
        }
        // Most random bytes are not a feed: the error is the expected outcome, not a finding.
        _ = try? parser.finish()
    }
    return 0
}
