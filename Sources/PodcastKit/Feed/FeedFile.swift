import FoundationEssentials
import Glibc
import PodcastPlatform
import PodcastText

/// Feed documents on disk: a feed file read as a feed, and the names of the files in the feed
/// cache (a fetched feed's body, and the temporary file a fetch writes it to first).
public enum FeedFile {
    /// Reads a feed from a file on this machine.
    public static func read(file path: String) throws(FeedError) -> FeedParser.Result {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return try parse(file: absolute, url: "file://" + absolute.replacing(" ", with: "%20"), source: path)
    }

    /// Parses the file at `path` as the document at `url`, named `source` in errors; `httpCharset`
    /// is the charset its server named, if any.
    static func parse(file path: String, url: String, source: String, httpCharset: String? = nil) throws(FeedError) -> FeedParser.Result {
        let parser = FeedParser(url: url, source: source, httpCharset: httpCharset)
        do {
            try FileIO.read(path) { bytes in
                parser.parse(bytes)
                return parser.wantsMoreBytes
            }
        } catch {
            throw FeedError(.unreadable(error), source: source)
        }
        return try parser.finish()
    }

    /// The `charset` parameter of a Content-Type, without quotes, if any.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0]).trimmingWhitespace().lowercased() == "charset" else { continue }
            let value = String(pair[1]).trimmingWhitespace().withoutQuotes()
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// A stable file name for a URL's cached body.
    static func cacheFileName(for url: String) -> String {
        StableHash.hex(url) + ".xml"
    }

    /// The name of this process's `number`th temporary feed body: the process id in it tells a
    /// leftover of a killed process from a file another running podcast is writing.
    static func partialName(number: Int) -> String {
        "\(partialPrefix)\(getpid())-\(number).part"
    }

    private static let partialPrefix = ".fetch-"
    /// What podcast 0.x before issue 28 called its temporary feed bodies.
    private static let olderPartialPrefix = ".update-"

    /// Removes the temporary feed bodies in `directory` whose process is gone (killed mid-fetch;
    /// up to 256 MiB each); returns how many. Files of a process still running are left to it.
    static func removeLeftovers(in directory: String) throws(SystemError) -> Int {
        var removed = 0
        for name in try FileIO.names(in: directory) {
            guard let process = leftoverProcess(name), process != getpid(), kill(process, 0) != 0, errno == ESRCH else { continue }
            // Ownership: a temporary feed body of podcast's own, in its own feed cache, whose writer is gone.
            guard unlink(directory + "/" + name) == 0 || errno == ENOENT else {
                throw SystemError.last("unlink", path: directory + "/" + name)
            }
            removed += 1
        }
        return removed
    }

    /// The process id in a temporary feed body's name, or nil when `name` is no such file.
    static func leftoverProcess(_ name: String) -> pid_t? {
        guard name.hasSuffix(".part") else { return nil }
        let rest: Substring
        if name.hasPrefix(partialPrefix) {
            rest = name.dropFirst(partialPrefix.count)
        } else if name.hasPrefix(olderPartialPrefix) {
            rest = name.dropFirst(olderPartialPrefix.count)
        } else {
            return nil
        }
        return rest.split(separator: "-").first.flatMap { pid_t($0) }.flatMap { $0 > 0 ? $0 : nil }
    }
}

private extension String {
    /// The string without surrounding single or double quotes.
    func withoutQuotes() -> String {
        var text = Substring(self)
        while let first = text.first, first == "\"" || first == "'" { text = text.dropFirst() }
        while let last = text.last, last == "\"" || last == "'" { text = text.dropLast() }
        return String(text)
    }
}
