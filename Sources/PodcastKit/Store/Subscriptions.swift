import CSQLite
import FoundationEssentials
import PodcastHTTP

/// The subscriptions table, with the episodes each one's fetches have shown
/// (`subscription_episodes`) and the addresses it had before (`subscription_urls`): kept
/// together because a subscription's update, move or removal changes them in one transaction.
public struct Subscriptions {
    let store: StateStore

    // MARK: Reading

    /// Every subscription, by title.
    public func all() throws(StoreError) -> [Subscription] {
        try store.read { () throws(SQLiteError) in try selectSubscriptions(where: "1") }
    }

    /// The subscription whose current or earlier address is `url`, if any.
    public func find(url: String) throws(StoreError) -> Subscription? {
        try store.read { () throws(SQLiteError) in try subscription(named: url) }
    }

    /// Every subscription with its counts, by title.
    public func summaries() throws(StoreError) -> [SubscriptionSummary] {
        try store.read { () throws(SQLiteError) in
            let subscriptions = try selectSubscriptions(where: "1")
            let counts = try store.connection.prepare("""
                SELECT s.id,
                    (SELECT COUNT(*) FROM subscription_episodes WHERE subscription = s.id),
                    (SELECT COUNT(*) FROM subscription_episodes WHERE subscription = s.id AND state = 'new'),
                    (SELECT COUNT(*) FROM downloads WHERE feed = s.url AND state = 'downloaded')
                FROM subscriptions AS s
                """)
            var byID: [Int: (Int, Int, Int)] = [:]
            while try counts.step() {
                byID[try counts.int(at: 0)] = (try counts.int(at: 1), try counts.int(at: 2), try counts.int(at: 3))
            }
            return subscriptions.map { subscription in
                let (episodes, new, downloaded) = byID[subscription.id] ?? (0, 0, 0)
                return SubscriptionSummary(subscription: subscription, episodes: episodes, new: new, downloaded: downloaded)
            }
        }
    }

    /// What each subscription's last recorded fetch was answered with, by id: the digest of the
    /// first page and its validators, for the next update's conditional GET.
    func lastAnswers() throws(StoreError) -> [Int: FeedRefresh.LastAnswer] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("SELECT id, body_digest, etag, last_modified FROM subscriptions")
            var answers: [Int: FeedRefresh.LastAnswer] = [:]
            while try query.step() {
                answers[try query.int(at: 0)] = FeedRefresh.LastAnswer(
                    digest: query.optionalString(at: 1), etag: query.optionalString(at: 2), lastModified: query.optionalString(at: 3))
            }
            return answers
        }
    }

    /// The episodes of `subscription` waiting to be downloaded, newest first, as listing items
    /// (numbered from 1 in that order); those already downloaded some other way are marked done.
    public func pendingEpisodes(of subscription: Subscription) throws(StoreError) -> [ListingItem] {
        try store.write { () throws(SQLiteError) -> [ListingItem] in
            try store.connection.execute("""
                UPDATE subscription_episodes SET state = 'done'
                WHERE subscription = \(subscription.id) AND state = 'new' AND EXISTS (
                    SELECT 1 FROM downloads WHERE feed = (SELECT url FROM subscriptions WHERE id = \(subscription.id))
                        AND identity = subscription_episodes.identity AND state = 'downloaded')
                """)
            // An episode whose download failed for good (404, a web page) waits for its address
            // to change instead of being asked for again at every update.
            let query = try store.connection.prepare("""
                SELECT e.identity, e.title, e.enclosure_url, e.enclosure_type, e.enclosure_length, e.published, e.guid, e.integrity
                FROM subscription_episodes AS e
                LEFT JOIN downloads AS d ON d.feed = :url AND d.identity = e.identity
                WHERE e.subscription = :id AND e.state = 'new'
                    AND NOT (d.state IS 'failed' AND d.final_error = 1 AND d.url IS e.enclosure_url)
                ORDER BY e.published DESC, e.title
                """)
            try query.bind(subscription.url, named: ":url")
            try query.bind(subscription.id, named: ":id")
            var number = 0
            return try query.rows { row throws(SQLiteError) in
                number += 1
                return ListingItem(
                    number: number, identity: try row.string(at: 0), title: try row.string(at: 1), enclosureURL: row.optionalString(at: 2),
                    enclosureType: row.optionalString(at: 3), enclosureLength: row.optionalInt64(at: 4),
                    published: row.optionalDouble(at: 5).map { Date(timeIntervalSince1970: $0) }, guid: row.optionalString(at: 6),
                    integrity: row.optionalString(at: 7).flatMap(Integrity.init(stored:)))
            }
        }
    }

    /// The files `subscription`'s updates downloaded that are on record, for `keep`: never a file
    /// of the same episode asked for by hand (`FileOwnership`), with each episode's place in the
    /// order the subscription's fetches showed them (`KeepRule.File.position`).
    public func filesDownloaded(by subscription: Subscription) throws(StoreError) -> [KeepRule.File] {
        try store.read { () throws(SQLiteError) in
            let query = try store.connection.prepare("""
                SELECT d.identity, d.path, d.published, e.first_seen, e.rowid, d.feed
                FROM downloads AS d LEFT JOIN subscription_episodes AS e ON e.subscription = :id AND e.identity = d.identity
                WHERE d.subscription = :id AND d.state = 'downloaded' AND d.path IS NOT NULL
                """)
            try query.bind(subscription.id, named: ":id")
            let rows = try query.rows { row throws(SQLiteError) in
                (file: KeepRule.File(
                    identity: try row.string(at: 0), path: try row.string(at: 1),
                    published: row.optionalDouble(at: 2).map { Date(timeIntervalSince1970: $0) }, feed: try row.string(at: 5)),
                 seen: row.optionalDouble(at: 3), order: row.optionalInt64(at: 4))
            }
            // A later fetch's episodes first; within one fetch, the feed's order (rows are added in it).
            let ranked = rows.filter { $0.seen != nil }.sorted { left, right in
                left.seen != right.seen ? (left.seen ?? 0) > (right.seen ?? 0) : (left.order ?? 0) < (right.order ?? 0)
            }
            var position: [String: Int] = [:]
            for (index, row) in ranked.enumerated() { position[row.file.identity] = index }
            return rows.map { row in
                var file = row.file
                file.position = position[file.identity]
                return file
            }
        }
    }

    /// How many finished files of `subscription`'s feed are not its updates' (downloaded by hand,
    /// or before podcast recorded why): `keep` and `unsubscribe --delete-files` never take them,
    /// and say so.
    public func filesNotDownloaded(by subscription: Subscription) throws(StoreError) -> Int {
        try store.read { () throws(SQLiteError) -> Int in
            let query = try store.connection.prepare("""
                SELECT COUNT(*) FROM downloads
                WHERE state = 'downloaded' AND path IS NOT NULL AND (subscription IS NULL OR subscription != :id)
                    AND (feed = :url OR feed IN (SELECT url FROM subscription_urls WHERE subscription = :id))
                """)
            try query.bind(subscription.id, named: ":id")
            try query.bind(subscription.url, named: ":url")
            return try query.firstRow { row throws(SQLiteError) in try row.int(at: 0) } ?? 0
        }
    }

    // MARK: Writing

    /// Subscribes to the feed at `url` (titled `title`), or applies `change` to the subscription
    /// that already has `url` as its current or an earlier address. A new subscription is
    /// recorded under the normalised address (`FeedAddress`) and its title as subscriptions keep
    /// one (`Subscription.keptTitle`, else the address), whoever calls.
    public func subscribe(
        url given: String, title givenTitle: String, htmlURL: String?, change: SubscriptionSettingsChange
    ) throws(StoreError) -> (Subscription, SubscribeStatus) {
        let url = FeedAddress.normalized(given)
        let title = Subscription.keptTitle(givenTitle) ?? url
        return try store.write { () throws(SQLiteError) -> (Subscription, SubscribeStatus) in
            if let existing = try subscription(named: url) {
                let settings = change.applied(to: existing.settings)
                // Subscribing again to a feed that answered 410 once is asking for it again:
                // the caller has just fetched it. Its episodes and downloads stay its own.
                guard settings != existing.settings || existing.isGone else { return (existing, .exists) }
                try saveSettings(settings, of: existing.id)
                if settings.first != existing.settings.first { try reapplyFirst(settings.first, of: existing) }
                if existing.isGone { try store.connection.execute("UPDATE subscriptions SET gone = 0 WHERE id = \(existing.id)") }
                var changed = existing
                changed.settings = settings
                changed.isGone = false
                return (changed, existing.isGone ? .revived : .changed)
            }
            let settings = change.applied(to: SubscriptionSettings())
            // A new number, never one a removed subscription had (`subscription_numbers`).
            try store.connection.execute("UPDATE subscription_numbers SET last = MAX(last, (SELECT COALESCE(MAX(id), 0) FROM subscriptions)) + 1")
            let insert = try store.connection.prepare("""
                INSERT INTO subscriptions (id, url, title, html_url, added_at)
                VALUES ((SELECT last FROM subscription_numbers), :url, :title, :html, :now) RETURNING id
                """)
            try insert.bind(url, named: ":url")
            try insert.bind(title, named: ":title")
            try insert.bind(htmlURL, named: ":html")
            try insert.bind(Date().timeIntervalSince1970, named: ":now")
            guard let id = try insert.firstRow({ row throws(SQLiteError) in try row.int(at: 0) }) else {
                throw SQLiteError(code: SQLITE_ERROR, message: "the new subscription got no id")
            }
            try saveSettings(settings, of: id)
            return (Subscription(id: id, url: url, title: title, htmlURL: htmlURL, settings: settings), .added)
        }
    }

    /// Removes subscription `id` with what it has seen. Its download records stay, no longer its:
    /// the files it downloaded become like files asked for by hand, so a later subscription that
    /// gets the same id never takes them for its own.
    public func unsubscribe(_ id: Int) throws(StoreError) {
        try store.write { () throws(SQLiteError) in
            try store.connection.execute("DELETE FROM subscriptions WHERE id = \(id)")
            try store.connection.execute("UPDATE downloads SET subscription = NULL WHERE subscription = \(id)")
            try store.connection.execute("UPDATE library_files SET subscription = NULL WHERE subscription = \(id)")
        }
    }

    /// Records one feed's update: its move, title, result and validators, and its episodes'
    /// triage (`EpisodeTriage`), all in one transaction, so a crash leaves either the update
    /// whole or none of it (and the next update fetches the feed again).
    ///
    /// `FeedRefresh` refuses a move onto another subscription's address before reading anything
    /// there; should one still arrive (another process subscribed to that address meanwhile),
    /// the document read there is the other subscription's: nothing of it (title, validators,
    /// episodes) is recorded, and the update of this one failed.
    public func recordRefresh(_ refresh: SubscriptionRefreshRecord) throws(StoreError) -> RefreshTriage {
        try recordRefreshes([refresh])[0]
    }

    /// Records several feeds' updates (`recordRefresh`) in one transaction: a round of hundreds
    /// of unchanged feeds costs one commit, not one each. Returns their triages, in order.
    func recordRefreshes(_ refreshes: [SubscriptionRefreshRecord]) throws(StoreError) -> [RefreshTriage] {
        guard !refreshes.isEmpty else { return [] }
        return try store.write { () throws(SQLiteError) -> [RefreshTriage] in
            var triages: [RefreshTriage] = []
            for refresh in refreshes { triages.append(try recordOneRefresh(refresh)) }
            return triages
        }
    }

    /// `recordRefresh` inside a transaction.
    private func recordOneRefresh(_ refresh: SubscriptionRefreshRecord) throws(SQLiteError) -> RefreshTriage {
        guard let current = try selectSubscriptions(where: "id = \(refresh.id)").first else {
            return RefreshTriage(new: 0, churned: 0)  // unsubscribed meanwhile
        }
        var triage = RefreshTriage(new: 0, churned: 0)
        var refresh = refresh
        if refresh.address != current.url, let refused = try move(current, to: refresh.address) {
            triage.moveRefused = refused
            refresh = SubscriptionRefreshRecord(id: current.id, address: current.url, result: .failed, error: refused)
        }
        let update = try store.connection.prepare("""
            UPDATE subscriptions SET last_update = :now, last_result = :result, last_error = :error,
                title = COALESCE(:title, title), html_url = COALESCE(:html, html_url),
                body_digest = COALESCE(:digest, body_digest), gone = :gone,
                etag = CASE WHEN :answered THEN :etag ELSE etag END,
                last_modified = CASE WHEN :answered THEN :last_modified ELSE last_modified END
            WHERE id = :id
            """)
        try update.bind(Date().timeIntervalSince1970, named: ":now")
        try update.bind(refresh.result.rawValue, named: ":result")
        try update.bind(refresh.error, named: ":error")
        try update.bind(refresh.title.flatMap(Subscription.keptTitle), named: ":title")
        try update.bind(refresh.htmlURL, named: ":html")
        try update.bind(refresh.digest, named: ":digest")
        try update.bind(refresh.result == .gone ? 1 : 0, named: ":gone")
        try update.bind(refresh.cacheEntry == nil ? 0 : 1, named: ":answered")
        try update.bind(refresh.cacheEntry?.etag, named: ":etag")
        try update.bind(refresh.cacheEntry?.lastModified, named: ":last_modified")
        try update.bind(refresh.id, named: ":id")
        try update.run()
        if let entry = refresh.cacheEntry { try store.feedCache.upsert(entry) }
        if let episodes = refresh.episodes {
            let verdict = try recordEpisodes(episodes, of: current)
            triage.new = verdict.new.count
            triage.churned = verdict.churned ? verdict.seen.count : 0
        }
        return triage
    }

    /// Marks `identities` of subscription `id` done: downloaded, never to be downloaded again by `update`.
    public func markEpisodesDone(_ identities: [String], of id: Int) throws(StoreError) {
        guard !identities.isEmpty else { return }
        try store.write { () throws(SQLiteError) in
            let statement = try store.connection.prepare("UPDATE subscription_episodes SET state = 'done' WHERE subscription = ?1 AND identity = ?2")
            for identity in identities {
                try statement.bind(id, at: 1)
                try statement.bind(identity, at: 2)
                try statement.run()
                try statement.reset()
            }
        }
    }

    /// Marks every new episode of the subscriptions `ids` seen; returns how many there were.
    public func catchUp(_ ids: [Int]) throws(StoreError) -> Int {
        try store.write { () throws(SQLiteError) -> Int in
            var count = 0
            for id in ids {
                try store.connection.execute("UPDATE subscription_episodes SET state = 'seen' WHERE subscription = \(id) AND state = 'new'")
                count += store.connection.changes
            }
            return count
        }
    }

    // MARK: Inside transactions

    /// The subscription whose current or earlier address is `url` in any of its written forms
    /// (`FeedAddress`): a store written before addresses were normalised may hold
    /// `HTTP://h/x#top` where the user now gives `http://h/x`, and that is the same feed.
    private func subscription(named url: String) throws(SQLiteError) -> Subscription? {
        let query = try store.connection.prepare("""
            SELECT COALESCE((SELECT id FROM subscriptions WHERE url = :url), (SELECT subscription FROM subscription_urls WHERE url = :url))
            """)
        try query.bind(url, named: ":url")
        let exact = try query.firstRow({ row throws(SQLiteError) in row.optionalInt(at: 0) }) ?? nil
        let found = if let exact { exact } else { try subscriptionID(normalizing: url) }
        guard let id = found else { return nil }
        return try selectSubscriptions(where: "id = \(id)").first
    }

    /// The id of the subscription whose current address, else an earlier one, normalises to the
    /// same as `url`. Compared in Swift over the rows (a household's subscriptions are few), so
    /// the stored addresses need no rewriting.
    private func subscriptionID(normalizing url: String) throws(SQLiteError) -> Int? {
        let wanted = FeedAddress.normalized(url)
        for table in ["SELECT id, url FROM subscriptions ORDER BY id", "SELECT subscription, url FROM subscription_urls ORDER BY subscription"] {
            let rows = try store.connection.prepare(table)
            while try rows.step() {
                if FeedAddress.normalized(try rows.string(at: 1)) == wanted { return try rows.int(at: 0) }
            }
        }
        return nil
    }

    /// Applies the first-N rule again (`EpisodeTriage.baseline`) to `subscription`'s baseline, the
    /// episodes of its first fetch (the rows sharing the earliest `first_seen`, in the feed's
    /// order), so a changed `--first` takes: lowered, fewer of them stay new; raised, more become
    /// new. Only while that baseline is all still pending (no episode of it done, none of its new
    /// ones downloaded): what `update` already fetched or the user deleted is history, not to be
    /// rewritten. Without a baseline yet, the stored setting applies at the first update.
    private func reapplyFirst(_ first: Int, of subscription: Subscription) throws(SQLiteError) {
        guard subscription.hasBaseline else { return }
        let query = try store.connection.prepare("""
            SELECT e.identity, e.state = 'done' OR (e.state = 'new' AND EXISTS (
                SELECT 1 FROM downloads WHERE feed = :url AND identity = e.identity AND state = 'downloaded'))
            FROM subscription_episodes AS e
            WHERE e.subscription = :id
                AND e.first_seen = (SELECT MIN(first_seen) FROM subscription_episodes WHERE subscription = :id)
            ORDER BY e.rowid
            """)
        try query.bind(subscription.url, named: ":url")
        try query.bind(subscription.id, named: ":id")
        var identities: [String] = []
        while try query.step() {
            guard try query.int(at: 1) == 0 else { return }
            identities.append(try query.string(at: 0))
        }
        let (new, seen) = EpisodeTriage.baseline(identities, first: first)
        let mark = try store.connection.prepare("UPDATE subscription_episodes SET state = ?3 WHERE subscription = ?1 AND identity = ?2")
        for (identity, state) in new.map({ ($0, "new") }) + seen.map({ ($0, "seen") }) {
            try mark.bind(subscription.id, at: 1)
            try mark.bind(identity, at: 2)
            try mark.bind(state, at: 3)
            try mark.run()
            try mark.reset()
        }
    }

    private func saveSettings(_ settings: SubscriptionSettings, of id: Int) throws(SQLiteError) {
        let update = try store.connection.prepare("""
            UPDATE subscriptions SET first = :first, keep = :keep, episodes_dir = :dir, name_template = :template,
                no_download = :no_download, companions = :companions, on_episode = :on_episode WHERE id = :id
            """)
        try update.bind(settings.first, named: ":first")
        try update.bind(settings.keep, named: ":keep")
        try update.bind(settings.episodesDirectory, named: ":dir")
        try update.bind(settings.nameTemplate?.text, named: ":template")
        try update.bind(settings.noDownload ? 1 : 0, named: ":no_download")
        try update.bind(settings.companions.map(Companion.list), named: ":companions")
        try update.bind(settings.onEpisode, named: ":on_episode")
        try update.bind(id, named: ":id")
        try update.run()
    }

    /// Moves `subscription` to `address`: its old address is kept as an alias, and its download
    /// records are keyed by the new one (so a moved feed's episodes are not downloaded again).
    /// Returns why it cannot move, when another subscription already has that address.
    private func move(_ subscription: Subscription, to address: String) throws(SQLiteError) -> String? {
        if let other = try self.subscription(named: address), other.id != subscription.id {
            return "it moved to \(address), which is also the subscription \"\(other.title)\"; "
                + "unsubscribe one of the two"
        }
        let dropAlias = try store.connection.prepare("DELETE FROM subscription_urls WHERE url = :new")
        try dropAlias.bind(address, named: ":new")
        try dropAlias.run()
        let keepAlias = try store.connection.prepare("INSERT OR IGNORE INTO subscription_urls (url, subscription) VALUES (:old, :id)")
        try keepAlias.bind(subscription.url, named: ":old")
        try keepAlias.bind(subscription.id, named: ":id")
        try keepAlias.run()
        let moveSubscription = try store.connection.prepare("UPDATE subscriptions SET url = :new WHERE id = :id")
        try moveSubscription.bind(address, named: ":new")
        try moveSubscription.bind(subscription.id, named: ":id")
        try moveSubscription.run()
        try EpisodeRecords.move(fromFeed: subscription.url, toFeed: address, in: store.connection)
        return nil
    }

    /// Records the episodes of a fetch of `subscription`: the triage of those not seen before,
    /// and the latest details (enclosure, title) of every one. An episode seen under another
    /// identity than the item's (`EpisodeTriage.sameEpisodes`: a new URL, a feed that gained
    /// guids, a store made by an older identity rule) takes the item's identity in every record of
    /// it (`rekey`), so the subscription, its download record and `podcast episodes`' listing all
    /// know it alike, and nothing is downloaded twice.
    private func recordEpisodes(_ fetched: [ListingItem], of subscription: Subscription) throws(SQLiteError) -> EpisodeTriage.Verdict {
        let known = try store.connection.prepare("""
            SELECT identity, published, title, guid, enclosure_url FROM subscription_episodes WHERE subscription = :id
            """)
        try known.bind(subscription.id, named: ":id")
        var identities = Set<String>()
        var seen: [EpisodeTriage.Recognisable] = []
        var newestKnown: Date?
        while try known.step() {
            let identity = try known.string(at: 0)
            let published = known.optionalDouble(at: 1).map(Date.init(timeIntervalSince1970:))
            identities.insert(identity)
            seen.append(EpisodeTriage.Recognisable(
                identity: identity, title: try known.string(at: 2), published: published,
                // Known by its guid only when its identity is that guid: a row recognised under a
                // fallback identity keeps it after its feed gained guids, and must stay recognisable.
                hasGuid: known.optionalString(at: 3).map { !$0.isEmpty && $0 == identity } ?? false,
                enclosureURL: known.optionalString(at: 4)))
            if let published {
                newestKnown = max(newestKnown ?? published, published)
            }
        }
        let renamed = EpisodeTriage.sameEpisodes(
            fetched.map { EpisodeTriage.Recognisable(
                identity: $0.identity, title: $0.title, published: $0.published, hasGuid: !($0.guid ?? "").isEmpty,
                enclosureURL: $0.enclosureURL) },
            known: seen)
        for (current, earlier) in renamed {
            try rekey(EpisodeKey(feed: subscription.url, identity: earlier), to: current, of: subscription.id)
            identities.remove(earlier)
            identities.insert(current)
        }
        let verdict = EpisodeTriage.verdict(
            on: fetched.map { EpisodeTriage.Fetched(identity: $0.identity, published: $0.published) },
            known: identities, newestKnown: newestKnown, baseline: !subscription.hasBaseline, first: subscription.settings.first)
        let new = Set(verdict.new)
        let upsert = try store.prepared("""
            INSERT INTO subscription_episodes (
                subscription, identity, state, title, published, guid, enclosure_url, enclosure_type, enclosure_length,
                integrity, first_seen
            ) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            ON CONFLICT (subscription, identity) DO UPDATE SET title = excluded.title, published = excluded.published,
                guid = excluded.guid, enclosure_url = excluded.enclosure_url, enclosure_type = excluded.enclosure_type,
                enclosure_length = excluded.enclosure_length, integrity = excluded.integrity
            """)
        let now = Date().timeIntervalSince1970
        for episode in fetched {
            try upsert.bind(subscription.id, at: 1)
            try upsert.bind(episode.identity, at: 2)
            try upsert.bind(new.contains(episode.identity) ? "new" : "seen", at: 3)
            try upsert.bind(episode.title, at: 4)
            try upsert.bind(episode.published?.timeIntervalSince1970, at: 5)
            try upsert.bind(episode.guid, at: 6)
            try upsert.bind(episode.enclosureURL, at: 7)
            try upsert.bind(episode.enclosureType, at: 8)
            try upsert.bind(episode.enclosureLength, at: 9)
            try upsert.bind(episode.integrity?.stored, at: 10)
            try upsert.bind(now, at: 11)
            try upsert.run()
            try upsert.reset()
        }
        try store.connection.execute("UPDATE subscriptions SET has_baseline = 1 WHERE id = \(subscription.id)")
        return verdict
    }

    /// Gives the episode `key` of subscription `subscription` the identity `identity` in every
    /// record of it (`EpisodeRecords.rekey`).
    private func rekey(_ key: EpisodeKey, to identity: String, of subscription: Int) throws(SQLiteError) {
        let episode = try store.connection.prepare("UPDATE subscription_episodes SET identity = ?1 WHERE subscription = ?2 AND identity = ?3")
        try episode.bind(identity, at: 1)
        try episode.bind(subscription, at: 2)
        try episode.bind(key.identity, at: 3)
        try episode.run()
        try EpisodeRecords.rekey(feed: key.feed, identity: key.identity, to: identity, in: store.connection)
    }

    /// A subscription's own value of `key` (a column of text), read as the setting reads it; nil
    /// when it has none. One that no longer reads is an error, never the run's value in silence.
    private static func stored(_ text: String?, as key: String) throws(StoredSettingsError) -> Settings? {
        guard let text, let setting = SettingsSchema.setting(key) else { return nil }
        var settings = Settings()
        do throws(SettingError) { try setting.set(setting.commandLine(text), in: &settings, given: false) } catch {
            throw StoredSettingsError(reason: "its stored \(error)")
        }
        return settings
    }

    private func selectSubscriptions(where condition: String) throws(SQLiteError) -> [Subscription] {
        let query = try store.connection.prepare("""
            SELECT id, url, title, html_url, first, keep, episodes_dir, name_template, no_download, gone, has_baseline,
                last_update, last_result, last_error, companions, on_episode
            FROM subscriptions WHERE \(condition) ORDER BY title COLLATE NOCASE, id
            """)
        return try query.rows { row throws(SQLiteError) in
            let title = try row.string(at: 2)
            var settings = SubscriptionSettings(
                first: try row.int(at: 4), keep: row.optionalInt(at: 5), episodesDirectory: row.optionalString(at: 6),
                noDownload: try row.int(at: 8) == 1)
            let (template, companions, hook) = (row.optionalString(at: 7), row.optionalString(at: 14), row.optionalString(at: 15))
            do throws(StoredSettingsError) {
                settings.nameTemplate = try Self.stored(template, as: "name-template")?.library.nameTemplate
                settings.companions = try Self.stored(companions, as: "with")?.library.companions
                settings.onEpisode = try Self.stored(hook, as: "on-episode")?.library.onEpisode
            } catch {
                throw SQLiteError.unreadable("the subscription \"\(title)\"", error)
            }
            return Subscription(
                id: try row.int(at: 0), url: try row.string(at: 1), title: title, htmlURL: row.optionalString(at: 3),
                settings: settings,
                isGone: try row.int(at: 9) == 1, hasBaseline: try row.int(at: 10) == 1,
                lastUpdate: row.optionalDouble(at: 11).map { Date(timeIntervalSince1970: $0) },
                lastResult: row.optionalString(at: 12).flatMap(Subscription.Result.init(rawValue:)),
                lastError: row.optionalString(at: 13))
        }
    }
}
