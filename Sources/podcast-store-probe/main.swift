// Drives the state store from its own process, so tests can run a writer and a reader at once.
//
//   podcast-store-probe write <db-path> <iterations> [<start-file>]
//   podcast-store-probe read <db-path> <final-iteration> [<start-file>]
//
// The writer stores searches "iteration-K" with exactly K % 50 + 1 results named "K-1", "K-2", …
// The reader checks every search it sees has exactly that shape (a torn replacement would not),
// and reads until it sees the final iteration. With a start file, the reader creates it after its
// first read and the writer waits for it, so the two are certain to run at the same time.
// Exit status: 0 when every call succeeded and every snapshot was whole, 1 otherwise, 2 for bad usage.

import PodcastKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `message` and a newline to standard error.
func printError(_ message: String) {
    var bytes = Array("podcast-store-probe: \(message)\n".utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        // Nowhere left to report a failing stderr; the exit status still says what happened.
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

/// Ends the process with status 1 after saying why.
func fail(_ message: String) -> Never {
    printError(message)
    exit(1)
}

/// The number of results the writer stores for iteration `k`.
func resultCount(iteration k: Int) -> Int { k % 50 + 1 }

/// The search the writer stores for iteration `k`.
func search(iteration k: Int) -> SearchOutcome {
    let results = (1...resultCount(iteration: k)).map { number in
        SearchResult(number: number, id: k * 100 + number, name: "\(k)-\(number)", artist: "probe")
    }
    return SearchOutcome(query: SearchQuery(term: "iteration-\(k)"), results: results, skippedOtherKinds: k)
}

/// Why `outcome` is not a search the writer could have stored whole, or nil when it is one.
func inconsistency(in outcome: SearchOutcome) -> String? {
    let term = outcome.query.term
    guard term.hasPrefix("iteration-"), let k = Int(term.dropFirst("iteration-".count)) else {
        return "unexpected search term \"\(term)\""
    }
    let expected = search(iteration: k)
    guard outcome.skippedOtherKinds == k else {
        return "search \"\(term)\" has skippedOtherKinds \(outcome.skippedOtherKinds), expected \(k)"
    }
    guard outcome.results.count == expected.results.count else {
        return "search \"\(term)\" has \(outcome.results.count) results, expected \(expected.results.count)"
    }
    for (found, wanted) in zip(outcome.results, expected.results) where found != wanted {
        return "search \"\(term)\" result \(found.number) is \"\(found.name)\" (id \(found.id)), "
            + "expected \(wanted.number) \"\(wanted.name)\" (id \(wanted.id))"
    }
    return nil
}

/// How long either side waits for the other before giving up.
let patience = ContinuousClock.Duration.seconds(60)

func runWriter(store: StateStore, iterations: Int, startFile: String?) throws(StoreError) {
    if let startFile {
        let deadline = ContinuousClock.now + patience
        while access(startFile, F_OK) != 0 {
            if ContinuousClock.now > deadline { fail("the reader never created \(startFile)") }
            usleep(1_000)
        }
    }
    for k in 1...iterations {
        try store.lastSearch.replace(with: search(iteration: k))
    }
    print("wrote \(iterations) searches")
}

func runReader(store: StateStore, finalIteration: Int, startFile: String?) throws(StoreError) {
    var seen = Set<String>()
    var reads = 0
    let deadline = ContinuousClock.now + patience
    let finalTerm = "iteration-\(finalIteration)"
    while !seen.contains(finalTerm) {
        if ContinuousClock.now > deadline { fail("never saw \(finalTerm) after \(reads) reads") }
        reads += 1
        // Nil until the writer's first commit.
        if let outcome = try store.lastSearch.load() {
            if let problem = inconsistency(in: outcome) { fail(problem) }
            seen.insert(outcome.query.term)
        }
        if reads == 1, let startFile, creat(startFile, 0o600) < 0 {
            fail("cannot create \(startFile)")
        }
    }
    print("read \(reads) snapshots, \(seen.count) distinct")
}

let arguments = CommandLine.arguments.dropFirst()
let words = Array(arguments)
guard words.count == 3 || words.count == 4,
      words[0] == "write" || words[0] == "read",
      let iterations = Int(words[2]), iterations > 0
else {
    printError("usage: podcast-store-probe write|read <db-path> <iterations> [<start-file>]")
    exit(2)
}
let mode = words[0]
let path = words[1]
let startFile = words.count == 4 ? words[3] : nil

do {
    let store = try StateStore(path: path)
    if mode == "write" {
        try runWriter(store: store, iterations: iterations, startFile: startFile)
    } else {
        try runReader(store: store, finalIteration: iterations, startFile: startFile)
    }
} catch {
    fail(error.description)
}
