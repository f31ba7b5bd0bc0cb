import Foundation
import PodcastTestSupport
import Testing

/// `<subscription>` as a user types it: a title in other letter case, or a near miss.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionReferenceTests {
    /// A home subscribed (without fetching anything) to feeds titled `titles`.
    private func subscribed(to titles: [String]) async throws -> PodcastBinary {
        let podcast = try PodcastBinary()
        let file = podcast.home.path("subscriptions.opml")
        let outlines = titles.enumerated().map { #"<outline text="\#($1)" xmlUrl="http://127.0.0.1:9/\#($0).xml"/>"# }
        try "<opml version=\"2.0\"><body>\(outlines.joined())</body></opml>".write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await podcast.run(["import", file])
        #expect(imported.status == 0, "import: \(imported.stderr)")
        return podcast
    }

    private func titles(_ podcast: PodcastBinary) async throws -> [String] {
        let listed = try await podcast.run(["subscriptions", "--json"])
        let document = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
        return (document?["subscriptions"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    @Test func aTitleInOtherLetterCaseNamesTheOneSubscriptionTitledSo() async throws {
        let podcast = try await subscribed(to: ["Tiny Tech", "The Loopback Hour"])
        let result = try await podcast.run(["unsubscribe", "tiny tech"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await titles(podcast) == ["The Loopback Hour"])
    }

    @Test func aTitleInOtherLetterCaseOfTwoSubscriptionsIsBadUsageNamingBoth() async throws {
        let podcast = try await subscribed(to: ["Tiny Tech", "TINY TECH"])
        let result = try await podcast.run(["unsubscribe", "tiny tech"])
        #expect(result.status == 64)
        #expect(result.stderr == "error: 2 subscriptions are titled \"tiny tech\" but for letter case (1 \"Tiny Tech\", 2 \"TINY TECH\"); name one by its number or exact title\n")
        #expect(try await titles(podcast).count == 2)
    }

    @Test(arguments: [["unsubscribe"], ["update", "--check"], ["catch-up"]])
    func aNearMissSuggestsTheTitleEveryCommandThatTakesASubscription(command: [String]) async throws {
        let podcast = try await subscribed(to: ["Tiny Tech", "The Loopback Hour"])
        let result = try await podcast.run(command + ["tiny tec"])
        #expect(result.status == 64)
        #expect(result.stderr == "error: no subscription is numbered, addressed or titled \"tiny tec\" (did you mean \"Tiny Tech\"?); see podcast subscriptions\n")
    }
}
