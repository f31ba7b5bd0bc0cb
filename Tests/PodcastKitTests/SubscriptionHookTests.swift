import Foundation
@testable import PodcastKit
import PodcastTestSupport
import Testing

/// A subscription's own `--on-episode`: in place of the run's for its episodes, changed only when
/// given, kept in the store's `on_episode` column (added by a migration), and never read back as
/// the run's in silence.
@Suite(.timeLimit(.minutes(5))) struct SubscriptionHookTests {
    private func store() throws -> (StateStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "subscription-hook")
        return (try StateStore(path: directory.path("state.sqlite")), directory)
    }

    @Test func theSubscriptionsHookReplacesTheRunsAndNoneOfItsOwnKeepsTheRunsSettings() throws {
        let run = LibrarySettings(tag: true, onEpisode: "run-hook")
        #expect(SubscriptionSettings().library(over: run) == nil)
        let own = try #require(SubscriptionSettings(onEpisode: "own-hook").library(over: run))
        #expect(own.onEpisode == "own-hook")
        #expect(own.tag)
        // The run's template and companions stay the run's: only the hook is the subscription's.
        #expect(own.nameTemplate == run.nameTemplate && own.companions == run.companions)
        #expect(SubscriptionSettings(onEpisode: ":").library(over: LibrarySettings())?.onEpisode == ":")
    }

    @Test func aChangeSetsTheHookOrGivesBackTheRunsAndLeavesItWhenNotGiven() {
        let hooked = SubscriptionSettingsChange(onEpisode: "cp \"$PODCAST_FILE\" /mnt").applied(to: SubscriptionSettings(first: 3, keep: 2))
        #expect(hooked == SubscriptionSettings(first: 3, keep: 2, onEpisode: "cp \"$PODCAST_FILE\" /mnt"))
        #expect(!SubscriptionSettingsChange(onEpisode: "x").isEmpty)
        #expect(SubscriptionSettingsChange(first: 1).applied(to: hooked).onEpisode == hooked.onEpisode)
        let cleared = SubscriptionSettingsChange(onEpisode: .some(nil))
        #expect(!cleared.isEmpty)
        #expect(cleared.applied(to: hooked) == SubscriptionSettings(first: 3, keep: 2))
    }

    @Test func theHookIsStoredChangedAloneAndGivenBack() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        let (added, _) = try store.subscriptions.subscribe(
            url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(keep: .some(4), onEpisode: "echo one"))
        #expect(added.settings.onEpisode == "echo one")
        #expect(try store.subscriptions.find(url: "http://h/feed.xml")?.settings == SubscriptionSettings(keep: 4, onEpisode: "echo one"))

        let (changed, status) = try store.subscriptions.subscribe(
            url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(onEpisode: "echo two"))
        #expect(status == .changed)
        #expect(changed.settings == SubscriptionSettings(keep: 4, onEpisode: "echo two"))
        #expect(try store.subscriptions.find(url: "http://h/feed.xml")?.settings == SubscriptionSettings(keep: 4, onEpisode: "echo two"))

        _ = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(onEpisode: .some(nil)))
        #expect(try store.subscriptions.find(url: "http://h/feed.xml")?.settings == SubscriptionSettings(keep: 4))
        let column = try store.connection.prepare("SELECT on_episode IS NULL FROM subscriptions")
        #expect(try column.firstRow { row throws(SQLiteError) in try row.int(at: 0) } == 1)
    }

    @Test func aStoredHookThatNoLongerReadsIsAnErrorNeverTheRunsHook() throws {
        let (store, directory) = try store()
        defer { withExtendedLifetime(directory) {} }
        _ = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(onEpisode: "echo"))
        try store.connection.execute("UPDATE subscriptions SET on_episode = '  '")
        let error = try #require(throws: StoreError.self) { try store.subscriptions.all() }
        guard case .unreadableRecord(let what) = error.kind else {
            Issue.record("expected an unreadable record, got \(error)")
            return
        }
        #expect(what.contains("\"Show\"") && what.contains("on-episode"))
    }

    @Test func aStoreFromBeforeTheColumnGetsItAndItsSubscriptionsKeepTheRunsHook() throws {
        let directory = try TemporaryDirectory(prefix: "subscription-hook-migration")
        let path = directory.path("state.sqlite")
        do {
            let store = try StateStore(path: path)
            _ = try store.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(first: 2))
            // The file as the version before the column wrote it.
            let before = try #require(StateStore.migrations.firstIndex { $0.summary.hasPrefix("each subscription's own on-episode") })
            try store.connection.execute("ALTER TABLE subscriptions DROP COLUMN on_episode; PRAGMA user_version = \(before)")
        }
        let upgraded = try StateStore(path: path)
        #expect(try upgraded.schemaVersion() == StateStore.currentSchemaVersion)
        #expect(try upgraded.subscriptions.find(url: "http://h/feed.xml")?.settings == SubscriptionSettings(first: 2))
        _ = try upgraded.subscriptions.subscribe(url: "http://h/feed.xml", title: "Show", htmlURL: nil, change: .init(onEpisode: "echo"))
        #expect(try upgraded.subscriptions.find(url: "http://h/feed.xml")?.settings.onEpisode == "echo")
    }
}
