// Drives the state store from its own process, so tests can run a writer and a reader at once.
//
//   podcast-store-probe write <db-path> <iterations>
//   podcast-store-probe read <db-path> <iterations>
//
// The writer stores searches "iteration-K" with exactly K % 50 + 1 results named "K-1", "K-2", …
// The reader checks every search it sees has exactly that shape: a torn replacement would not.
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

func runWriter(store: StateStore, iterations: Int) throws(StoreError) {
    for k in 1...iterations {
        try store.replaceLastSearch(search(iteration: k))
    }
    print("wrote \(iterations) searches")
}

func runReader(store: StateStore, iterations: Int) throws(StoreError) {
    var seen = Set<String>()
    for _ in 1...iterations {
        // Nil until the writer's first commit.
        guard let outcome = try store.lastSearch() else { continue }
        if let problem = inconsistency(in: outcome) { fail(problem) }
        seen.insert(outcome.query.term)
    }
    print("read \(iterations) snapshots, \(seen.count) distinct")
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3,
      let mode = arguments.first, mode == "write" || mode == "read",
      let iterations = arguments.last.flatMap({ Int($0) }), iterations > 0
else {
    printError("usage: podcast-store-probe write|read <db-path> <iterations>")
    exit(2)
}
let path = arguments[arguments.startIndex + 1]

do {
    let store = try StateStore(path: path)
    if mode == "write" {
        try runWriter(store: store, iterations: iterations)
    } else {
        try runReader(store: store, iterations: iterations)
    }
} catch {
    fail(error.description)
}
