import CSQLite
import FoundationEssentials
import PodcastHTTP
import PodcastPlatform

/// One step of the schema; step N (counted from 1) takes `PRAGMA user_version` from N-1 to N.
struct Migration {
    /// What the step changes, for readers of this file.
    let summary: String
    /// The statements of the step, run in one go inside the migration's transaction.
    let sql: String
    /// What the step does that SQL cannot, after `sql` and in the same transaction.
    var carryOver: (@Sendable (SQLiteConnection) throws(SQLiteError) -> Void)?
}

extension StateStore {
    /// Every schema step, oldest first. Append only: a released step never changes, because files
    /// already carry its result.
    static let migrations: [Migration] = [
        Migration(
            summary: "the last search and its results; the current listing and its items",
            sql: """
                -- The tables are STRICT so a wrong type is an error instead of a silent conversion.
                -- Times are Unix seconds as REAL.

                -- At most one row: the search that `podcast episodes N` and `podcast download N` refer to.
                CREATE TABLE last_search (
                    id                  INTEGER PRIMARY KEY CHECK (id = 1),
                    term                TEXT    NOT NULL,
                    media               TEXT    NOT NULL CHECK (media IN ('podcast', 'music')),
                    country             TEXT    NOT NULL,
                    result_limit        INTEGER NOT NULL,
                    searched_at         REAL    NOT NULL,
                    skipped_other_kinds INTEGER NOT NULL
                ) STRICT;

                -- Deleting the search deletes its results, so a replacement can never mix two searches.
                CREATE TABLE search_results (
                    search        INTEGER NOT NULL REFERENCES last_search (id) ON DELETE CASCADE,
                    number        INTEGER NOT NULL CHECK (number >= 1),
                    item_id       INTEGER NOT NULL,  -- iTunes collection id (podcast) or track id (song)
                    name          TEXT    NOT NULL,
                    artist        TEXT    NOT NULL,
                    feed_url      TEXT,
                    preview_url   TEXT,
                    genre         TEXT,
                    episode_count INTEGER,
                    artwork_url   TEXT,
                    store_url     TEXT,
                    release_date  TEXT,              -- as iTunes gives it (ISO 8601)
                    PRIMARY KEY (search, number)
                ) STRICT;

                -- At most one row: the episodes of a feed, or the previews of a music search.
                CREATE TABLE current_listing (
                    id          INTEGER PRIMARY KEY CHECK (id = 1),
                    source      TEXT NOT NULL CHECK (source IN ('feed', 'previews')),
                    feed_url    TEXT,
                    feed_title  TEXT,
                    search_term TEXT,
                    created_at  REAL NOT NULL,
                    CHECK (
                        (source = 'feed' AND feed_url IS NOT NULL AND feed_title IS NOT NULL AND search_term IS NULL)
                        OR (source = 'previews' AND search_term IS NOT NULL AND feed_url IS NULL AND feed_title IS NULL)
                    )
                ) STRICT;

                -- Items are held by identity (the feed's guid or its fallback) so that a download record
                -- can find the same episode again after the feed changes and the listing is replaced.
                CREATE TABLE listing_items (
                    listing          INTEGER NOT NULL REFERENCES current_listing (id) ON DELETE CASCADE,
                    number           INTEGER NOT NULL CHECK (number >= 1),
                    identity         TEXT    NOT NULL,
                    title            TEXT    NOT NULL,
                    enclosure_url    TEXT,
                    enclosure_type   TEXT,
                    enclosure_length INTEGER,
                    published        REAL,
                    PRIMARY KEY (listing, number)
                ) STRICT;

                -- A later step adds download progress and resume records as
                --   downloads (feed TEXT, identity TEXT, …, PRIMARY KEY (feed, identity))
                -- with no foreign key into current_listing: a listing is replaced wholesale, and that
                -- must not delete a half-finished download. (feed, identity) matches
                -- current_listing.feed_url with listing_items.identity.
                """
        ),
        Migration(
            summary: "the conditional-GET cache of each feed",
            sql: """
                -- One row per feed URL as requested: the validators of its last full answer and the
                -- file (in <home>/feeds) holding that answer's body, re-read when the server says 304.
                CREATE TABLE feed_cache (
                    url           TEXT PRIMARY KEY,
                    etag          TEXT,
                    last_modified TEXT,
                    body_file     TEXT NOT NULL,
                    fetched_at    REAL NOT NULL
                ) STRICT;
                """
        ),
        Migration(
            summary: "the progress buffer: one record per episode download",
            sql: """
                -- Keyed by the listing's feed URL and the episode's identity, so the same episode is
                -- recognised whichever listing it is reached from. owner_pid/owner_boot name the
                -- process working on it; a record whose owner is gone is free to take over.
                CREATE TABLE downloads (
                    feed          TEXT    NOT NULL,
                    identity      TEXT    NOT NULL,
                    podcast_title TEXT    NOT NULL,
                    title         TEXT    NOT NULL,
                    url           TEXT    NOT NULL,  -- the enclosure URL as the feed gives it
                    effective_url TEXT,              -- where the last attempt was served from
                    media_type    TEXT,
                    published     REAL,
                    state         TEXT    NOT NULL
                        CHECK (state IN ('queued', 'downloading', 'paused', 'failed', 'downloaded')),
                    bytes         INTEGER NOT NULL DEFAULT 0,
                    total         INTEGER,
                    etag          TEXT,
                    last_modified TEXT,
                    partial_path  TEXT,
                    path          TEXT,              -- the finished file
                    error         TEXT,
                    owner_pid     INTEGER,
                    owner_boot    TEXT,
                    updated_at    REAL    NOT NULL,
                    PRIMARY KEY (feed, identity)
                ) STRICT;
                CREATE UNIQUE INDEX downloads_by_path ON downloads (path) WHERE path IS NOT NULL;
                """
        ),
        Migration(
            summary: "listing items keep the feed's own guid (null when the identity is a fallback)",
            sql: """
                ALTER TABLE listing_items ADD COLUMN guid TEXT;
                """
        ),
        Migration(
            summary: "resume data: what of a partial file is known durable, and what is needed to rebuild the episode",
            sql: """
                -- durable_bytes: bytes of the partial file fdatasync'd before this row was written;
                -- after a reboot only they are trusted. data_boot: the boot in which the partial was
                -- written (same boot after a kill -9: the file's size is trusted). failures: attempts in
                -- a row that gained nothing. final_error: 1 when retrying cannot help (404, a web page).
                ALTER TABLE downloads ADD COLUMN durable_bytes    INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE downloads ADD COLUMN data_boot        TEXT;
                ALTER TABLE downloads ADD COLUMN failures         INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE downloads ADD COLUMN final_error      INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE downloads ADD COLUMN owner_start      INTEGER;
                ALTER TABLE downloads ADD COLUMN guid             TEXT;
                ALTER TABLE downloads ADD COLUMN enclosure_length INTEGER;
                ALTER TABLE downloads ADD COLUMN speed            REAL;
                """
        ),
        Migration(
            summary: "the enclosure's podcast:integrity digest, kept with the listing and the download",
            sql: """
                -- As the feed gives it: "<type> <value>", e.g. "sri sha384-…"; checked before a file is final.
                ALTER TABLE listing_items ADD COLUMN integrity TEXT;
                ALTER TABLE downloads ADD COLUMN integrity TEXT;
                """
        ),
        Migration(
            summary: "background batches and their episodes; pause and cancel requests to the process running a download",
            sql: """
                -- A batch is one `download --background` (or `resume --background`): the background
                -- worker's unit of work and of group completion. options: the transfer options as
                -- command-line arguments (JSON array), episodes directory made absolute.
                CREATE TABLE batches (
                    id           INTEGER PRIMARY KEY,
                    created_at   REAL    NOT NULL,
                    finished_at  REAL,              -- set once every item has settled
                    options      TEXT    NOT NULL,
                    on_complete  TEXT,              -- run by /bin/sh -c once the batch finishes
                    summary_path TEXT               -- the JSON summary written when it finished
                ) STRICT;

                -- One row per episode of a batch, keyed like downloads (no foreign key: cancelling drops
                -- the download but the batch must still say what became of it). outcome stays null
                -- until the episode is downloaded, failed or cancelled; number, guid and titles are kept
                -- for the summary.
                CREATE TABLE batch_items (
                    batch    INTEGER NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
                    feed     TEXT    NOT NULL,
                    identity TEXT    NOT NULL,
                    number   INTEGER,
                    guid     TEXT,
                    podcast  TEXT    NOT NULL,
                    title    TEXT    NOT NULL,
                    outcome  TEXT    CHECK (outcome IN ('downloaded', 'skipped', 'failed')),
                    path     TEXT,
                    bytes    INTEGER,
                    error    TEXT,
                    PRIMARY KEY (batch, feed, identity)
                ) STRICT;
                CREATE INDEX batch_items_by_download ON batch_items (feed, identity);

                -- `podcast pause` / `podcast cancel` asking the live process that runs a download to
                -- stop it. A table of its own, not a column of downloads: saving a download record
                -- replaces its row and would drop the request. Addressed to one process, so a request
                -- its addressee never saw is ignored by every later one.
                CREATE TABLE download_requests (
                    feed        TEXT    NOT NULL,
                    identity    TEXT    NOT NULL,
                    request     TEXT    NOT NULL CHECK (request IN ('pause', 'cancel')),
                    owner_pid   INTEGER NOT NULL,
                    owner_boot  TEXT    NOT NULL,
                    owner_start INTEGER,
                    PRIMARY KEY (feed, identity)
                ) STRICT;
                """
        ),
        Migration(
            summary: "downloads' state check without IN, which cost a temporary index on every write",
            sql: """
                -- SQLite checks `state IN (…5 values…)` by building a temporary index of the values for
                -- every row written: 10 of the 17 µs an update took. The same check spelled with = and
                -- OR costs nothing measurable. A CHECK cannot be altered, so the table is rebuilt
                -- (SQLite's documented procedure); its columns and data are unchanged.
                CREATE TABLE downloads_rebuilt (
                    feed             TEXT    NOT NULL,
                    identity         TEXT    NOT NULL,
                    podcast_title    TEXT    NOT NULL,
                    title            TEXT    NOT NULL,
                    url              TEXT    NOT NULL,  -- the enclosure URL as the feed gives it
                    effective_url    TEXT,              -- where the last attempt was served from
                    media_type       TEXT,
                    published        REAL,
                    state            TEXT    NOT NULL CHECK (
                        state = 'queued' OR state = 'downloading' OR state = 'paused' OR state = 'failed'
                        OR state = 'downloaded'),
                    bytes            INTEGER NOT NULL DEFAULT 0,
                    total            INTEGER,
                    etag             TEXT,
                    last_modified    TEXT,
                    partial_path     TEXT,
                    path             TEXT,              -- the finished file
                    error            TEXT,
                    owner_pid        INTEGER,
                    owner_boot       TEXT,
                    updated_at       REAL    NOT NULL,
                    durable_bytes    INTEGER NOT NULL DEFAULT 0,
                    data_boot        TEXT,
                    failures         INTEGER NOT NULL DEFAULT 0,
                    final_error      INTEGER NOT NULL DEFAULT 0,
                    owner_start      INTEGER,
                    guid             TEXT,
                    enclosure_length INTEGER,
                    speed            REAL,
                    integrity        TEXT,
                    PRIMARY KEY (feed, identity)
                ) STRICT;
                INSERT INTO downloads_rebuilt (
                    feed, identity, podcast_title, title, url, effective_url, media_type, published, state, bytes,
                    total, etag, last_modified, partial_path, path, error, owner_pid, owner_boot, updated_at,
                    durable_bytes, data_boot, failures, final_error, owner_start, guid, enclosure_length, speed,
                    integrity)
                SELECT
                    feed, identity, podcast_title, title, url, effective_url, media_type, published, state, bytes,
                    total, etag, last_modified, partial_path, path, error, owner_pid, owner_boot, updated_at,
                    durable_bytes, data_boot, failures, final_error, owner_start, guid, enclosure_length, speed,
                    integrity
                FROM downloads;
                DROP TABLE downloads;
                ALTER TABLE downloads_rebuilt RENAME TO downloads;
                CREATE UNIQUE INDEX downloads_by_path ON downloads (path) WHERE path IS NOT NULL;
                """
        ),
        Migration(
            summary: "a batch's episode can end cancelled, no longer counted as skipped",
            sql: """
                -- A CHECK cannot be altered: the table is rebuilt (SQLite's documented procedure).
                -- Episodes recorded as skipped with the error 'cancelled' were cancelled.
                CREATE TABLE batch_items_rebuilt (
                    batch    INTEGER NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
                    feed     TEXT    NOT NULL,
                    identity TEXT    NOT NULL,
                    number   INTEGER,
                    guid     TEXT,
                    podcast  TEXT    NOT NULL,
                    title    TEXT    NOT NULL,
                    outcome  TEXT    CHECK (
                        outcome = 'downloaded' OR outcome = 'skipped' OR outcome = 'failed' OR outcome = 'cancelled'),
                    path     TEXT,
                    bytes    INTEGER,
                    error    TEXT,
                    PRIMARY KEY (batch, feed, identity)
                ) STRICT;
                INSERT INTO batch_items_rebuilt (batch, feed, identity, number, guid, podcast, title, outcome, path, bytes, error)
                SELECT batch, feed, identity, number, guid, podcast, title,
                    CASE WHEN outcome = 'skipped' AND error = 'cancelled' THEN 'cancelled' ELSE outcome END,
                    path, bytes, error
                FROM batch_items;
                DROP TABLE batch_items;
                ALTER TABLE batch_items_rebuilt RENAME TO batch_items;
                CREATE INDEX batch_items_by_download ON batch_items (feed, identity);
                """
        ),
        Migration(
            summary: "subscriptions, the addresses they had, and the episodes each has seen",
            sql: """
                -- url: where the feed lives now. Its downloads are keyed by it (downloads.feed), so a
                -- move rewrites those keys and keeps the old address in subscription_urls, where a
                -- later subscribe to it finds the same subscription.
                CREATE TABLE subscriptions (
                    id            INTEGER PRIMARY KEY,
                    url           TEXT    NOT NULL UNIQUE,
                    title         TEXT    NOT NULL,
                    html_url      TEXT,
                    first         INTEGER NOT NULL DEFAULT 1 CHECK (first >= 0),
                    keep          INTEGER CHECK (keep IS NULL OR keep >= 1),
                    episodes_dir  TEXT,
                    name_template TEXT,
                    no_download   INTEGER NOT NULL DEFAULT 0 CHECK (no_download = 0 OR no_download = 1),
                    gone          INTEGER NOT NULL DEFAULT 0 CHECK (gone = 0 OR gone = 1),
                    has_baseline  INTEGER NOT NULL DEFAULT 0 CHECK (has_baseline = 0 OR has_baseline = 1),
                    added_at      REAL    NOT NULL,
                    last_update   REAL,
                    last_result   TEXT CHECK (
                        last_result = 'updated' OR last_result = 'unchanged' OR last_result = 'moved'
                        OR last_result = 'gone' OR last_result = 'failed'),
                    last_error    TEXT,
                    -- What the update last recorded was answered with: the body's SHA-256 and the
                    -- validators of the conditional GET. Kept here, not only in feed_cache, which
                    -- `podcast episodes` also writes: its fetch must not make update miss news.
                    body_digest   TEXT,
                    etag          TEXT,
                    last_modified TEXT
                ) STRICT;

                CREATE TABLE subscription_urls (
                    url          TEXT    PRIMARY KEY,
                    subscription INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE
                ) STRICT;

                -- Every identity a subscription's fetches have shown: seen (the baseline, a churned
                -- fetch, caught up), new (for update to download) or done (downloaded, or deleted
                -- by keep: never downloaded again). What a download needs is kept with it, so new
                -- episodes are fetched even when the feed answers 304 next time.
                CREATE TABLE subscription_episodes (
                    subscription     INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
                    identity         TEXT    NOT NULL,
                    state            TEXT    NOT NULL CHECK (state = 'seen' OR state = 'new' OR state = 'done'),
                    title            TEXT    NOT NULL,
                    published        REAL,
                    guid             TEXT,
                    enclosure_url    TEXT,
                    enclosure_type   TEXT,
                    enclosure_length INTEGER,
                    integrity        TEXT,
                    first_seen       REAL    NOT NULL,
                    PRIMARY KEY (subscription, identity)
                ) STRICT;
                CREATE INDEX subscription_episodes_new ON subscription_episodes (subscription) WHERE state = 'new';

                -- `update --background`: updates waiting for the background worker, taken (deleted)
                -- by it when it starts one. subscriptions: a JSON array of ids, NULL for all.
                -- settings: the QueuedSettings the downloads use.
                CREATE TABLE update_requests (
                    id            INTEGER PRIMARY KEY,
                    created_at    REAL    NOT NULL,
                    subscriptions TEXT,
                    refresh       INTEGER NOT NULL DEFAULT 0 CHECK (refresh = 0 OR refresh = 1),
                    settings      TEXT    NOT NULL
                ) STRICT;
                """
        ),
        Migration(
            summary: "finished files' digests and file settings; the files podcast wrote beside episodes; subscriptions' companions",
            sql: """
                -- sha256: hex digest of the finished file as it is on disk (tags included), taken while
                -- it was written: `podcast verify` checks the file against it. library: the file
                -- settings the episode was asked with (LibrarySettings.stored, NULL for the defaults),
                -- so `podcast resume` finishes it as it was begun.
                ALTER TABLE downloads ADD COLUMN sha256  TEXT;
                ALTER TABLE downloads ADD COLUMN library TEXT;

                -- Files podcast wrote beside an episode (its companions) or into a podcast's folder (its
                -- cover, its playlist). Only these and the episodes' own files are ever deleted (keep,
                -- delete, unsubscribe --delete-files), and a file the user put there is never in this table.
                CREATE TABLE library_files (
                    path     TEXT    PRIMARY KEY,
                    feed     TEXT    NOT NULL,
                    identity TEXT,              -- the episode's, NULL for a podcast's cover or playlist
                    kind     TEXT    NOT NULL CHECK (
                        kind = 'transcript' OR kind = 'chapters' OR kind = 'image' OR kind = 'info'
                        OR kind = 'cover' OR kind = 'playlist'),
                    bytes    INTEGER NOT NULL,
                    sha256   TEXT
                ) STRICT;
                CREATE INDEX library_files_by_episode ON library_files (feed, identity);

                -- A subscription's own companion files (`subscribe --with`, Companion.list), NULL for the run's.
                ALTER TABLE subscriptions ADD COLUMN companions TEXT;
                """
        ),
        Migration(
            summary: "episodes podcast deleted (delete, keep), so that new does not offer them again",
            sql: """
                -- One row per episode whose finished file podcast deleted: listings show it as deleted, not
                -- new. Its downloads row is gone (every other query stays as it was); a new download of it
                -- makes a downloads row, which listings prefer.
                CREATE TABLE deleted_episodes (
                    feed          TEXT NOT NULL,
                    identity      TEXT NOT NULL,
                    podcast_title TEXT NOT NULL,
                    title         TEXT NOT NULL,
                    url           TEXT NOT NULL,
                    deleted_at    REAL NOT NULL,
                    PRIMARY KEY (feed, identity)
                ) STRICT;
                """
        ),
        Migration(
            summary: "a listing's items are kept as one value (StoredListingItems), not as a row each",
            sql: """
                ALTER TABLE current_listing ADD COLUMN items BLOB NOT NULL DEFAULT x'';
                """,
            carryOver: { connection throws(SQLiteError) in
                // The listing shown before the upgrade keeps its numbers for `podcast download N`.
                let rows = try connection.prepare("""
                    SELECT number, identity, title, enclosure_url, enclosure_type, enclosure_length, published, guid, integrity
                    FROM listing_items ORDER BY listing, number
                    """)
                let items = try rows.rows { row throws(SQLiteError) in
                    ListingItem(
                        number: try row.int(at: 0), identity: try row.string(at: 1), title: try row.string(at: 2),
                        enclosureURL: row.optionalString(at: 3), enclosureType: row.optionalString(at: 4),
                        enclosureLength: row.optionalInt64(at: 5),
                        published: row.optionalDouble(at: 6).map { Date(timeIntervalSince1970: $0) },
                        guid: row.optionalString(at: 7), integrity: row.optionalString(at: 8).flatMap(Integrity.init(stored:)))
                }
                let update = try connection.prepare("UPDATE current_listing SET items = ?1")
                try update.bind(StoredListingItems.encode(items), at: 1)
                try update.run()
                try connection.execute("DROP TABLE listing_items")
            }
        ),
        Migration(
            summary: "why podcast wrote each finished file: which subscription's update, or by hand",
            sql: """
                -- subscription: the subscription whose update downloaded the finished file, NULL when it
                -- was asked for by hand (download, resume) or finished before podcast recorded why. keep
                -- and unsubscribe --delete-files remove only their own subscription's files
                -- (FileOwnership), and a companion follows its episode's media file. library_files'
                -- column is for a podcast's cover and playlist, which belong to no episode.
                ALTER TABLE downloads ADD COLUMN subscription INTEGER;
                ALTER TABLE library_files ADD COLUMN subscription INTEGER;

                -- file_device, file_inode, file_changed: which file podcast placed at the path, and
                -- its ctime then (FileIO.Stamp). A copy of it elsewhere, or a file moved there, has the
                -- same bytes but is not the file podcast wrote, and FileOwnership leaves it alone. The
                -- same file with the same ctime is untouched: no need to read it for its digest.
                -- NULL for files placed before.
                ALTER TABLE downloads ADD COLUMN file_device INTEGER;
                ALTER TABLE downloads ADD COLUMN file_inode INTEGER;
                ALTER TABLE downloads ADD COLUMN file_changed INTEGER;
                ALTER TABLE library_files ADD COLUMN file_device INTEGER;
                ALTER TABLE library_files ADD COLUMN file_inode INTEGER;
                ALTER TABLE library_files ADD COLUMN file_changed INTEGER;

                -- The last subscription number given: a number is never given twice, so a download
                -- still recorded for a subscription since removed never counts as a new one's.
                CREATE TABLE subscription_numbers (last INTEGER NOT NULL) STRICT;
                INSERT INTO subscription_numbers (last) SELECT COALESCE(MAX(id), 0) FROM subscriptions;

                -- A finished file about to take its name: which file it is (device, inode), its size
                -- and digest. Written before the move and dropped with the record that names the
                -- file, so a kill -9 between the two leaves a row by which the next run knows the
                -- file it finds under one of the episode's names as podcast's own (Placement).
                CREATE TABLE placements (
                    feed     TEXT    NOT NULL,
                    identity TEXT    NOT NULL,
                    device   INTEGER NOT NULL,
                    inode    INTEGER NOT NULL,
                    bytes    INTEGER NOT NULL,
                    sha256   TEXT    NOT NULL,
                    PRIMARY KEY (feed, identity)
                ) STRICT;
                """
        ),
        Migration(
            summary: "which file each finished file placed before is, as found where its record says",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                // The files placed before: which file each is, as found now where its record says
                // (a regular file of the recorded size), so a copy put in its place later is not
                // taken for it. Its ctime then is unknown (`unknownChange`): it is read for its digest.
                for table in ["downloads", "library_files"] {
                    let rows = try connection.prepare("SELECT rowid, path, bytes FROM \(table) WHERE path IS NOT NULL")
                    let found = try rows.rows { row throws(SQLiteError) in (try row.int64(at: 0), try row.string(at: 1), row.optionalInt64(at: 2)) }
                    let stamp = try connection.prepare("UPDATE \(table) SET file_device = ?1, file_inode = ?2, file_changed = ?3 WHERE rowid = ?4")
                    for (rowid, path, bytes) in found {
                        guard FileIO.regularFileSize(path) == bytes, let now = FileIO.stamp(ofName: path) else { continue }
                        try stamp.bind(Int64(bitPattern: now.device), at: 1)
                        try stamp.bind(Int64(bitPattern: now.inode), at: 2)
                        try stamp.bind(FileIO.Stamp.unknownChange, at: 3)
                        try stamp.bind(rowid, at: 4)
                        try stamp.run()
                        try stamp.reset()
                    }
                }
            }
        ),
        Migration(
            summary: "fallback identities made again without per-fetch tokens and tracking redirects (EnclosureIdentity)",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                // An episode without a guid was known by its enclosure URL as the feed gave it; it is
                // now known by that URL's key. Every record keeps meaning the same episode: its
                // identity is made again by the new rule. Where two old identities make one new one
                // (the same episode under two tokens), the first keeps it and the other stays as it
                // was, with its files (`EpisodeRecords.rekey`).
                let episodes = try connection.prepare(
                    (["downloads"] + EpisodeRecords.tables).map {
                        "SELECT feed, identity FROM \($0) WHERE identity LIKE 'enclosure:%'"
                    }.joined(separator: " UNION "))
                let found = try episodes.rows { row throws(SQLiteError) in (feed: try row.string(at: 0), identity: try row.string(at: 1)) }
                for episode in found where StateStore.renewedIdentity(episode.identity) != episode.identity {
                    try EpisodeRecords.rekey(
                        feed: episode.feed, identity: episode.identity, to: StateStore.renewedIdentity(episode.identity), in: connection)
                }
                let subscriptionEpisodes = try connection.prepare(
                    "SELECT DISTINCT identity FROM subscription_episodes WHERE identity LIKE 'enclosure:%'")
                let seen = try subscriptionEpisodes.rows { row throws(SQLiteError) in try row.string(at: 0) }
                let rekeySeen = try connection.prepare("UPDATE OR IGNORE subscription_episodes SET identity = ?1 WHERE identity = ?2")
                for identity in seen where StateStore.renewedIdentity(identity) != identity {
                    try rekeySeen.bind(StateStore.renewedIdentity(identity), at: 1)
                    try rekeySeen.bind(identity, at: 2)
                    try rekeySeen.run()
                    try rekeySeen.reset()
                }
                // The listing shown before the upgrade keeps its numbers, under the new identities.
                // One that cannot be read is left as it is: reading it says so, as before.
                let listing = try connection.prepare("SELECT items FROM current_listing WHERE id = 1")
                let items = try listing.firstRow { row throws(SQLiteError) in
                    row.withBlob(at: 0) { bytes -> [ListingItem]? in
                        do throws(StoredListingItems.DecodingError) { return try StoredListingItems.decode(bytes) } catch { return nil }
                    }
                } ?? nil
                if let items, items.contains(where: { StateStore.renewedIdentity($0.identity) != $0.identity }) {
                    let renewed = items.map { item in
                        var item = item
                        item.identity = StateStore.renewedIdentity(item.identity)
                        return item
                    }
                    let update = try connection.prepare("UPDATE current_listing SET items = ?1 WHERE id = 1")
                    try update.bind(StoredListingItems.encode(renewed), at: 1)
                    try update.run()
                }
            }
        ),
        Migration(
            summary: "feed addresses kept in their one form (FeedAddress), and one subscription per feed",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                // Subscriptions an earlier version made of one feed spelt two ways (`HTTP://h/x`,
                // `http://h/x#top`) become one, the oldest, which keeps the other spellings as earlier
                // addresses: each episode is downloaded once from now on.
                let subscriptions = try connection.prepare("SELECT id, url FROM subscriptions ORDER BY id")
                let all = try subscriptions.rows { row throws(SQLiteError) in (id: try row.int(at: 0), url: try row.string(at: 1)) }
                var survivors: [String: Int] = [:]
                let alias = try connection.prepare("INSERT OR IGNORE INTO subscription_urls (url, subscription) VALUES (?1, ?2)")
                let drop = try connection.prepare("DELETE FROM subscriptions WHERE id = ?1")
                let respell = try connection.prepare("UPDATE subscriptions SET url = ?1 WHERE id = ?2")
                let adopt = try connection.prepare("UPDATE OR IGNORE subscription_urls SET subscription = ?1 WHERE subscription = ?2")
                for subscription in all {
                    let normal = FeedAddress.normalized(subscription.url)
                    if let survivor = survivors[normal] {
                        // Its earlier addresses stay the feed's: a move onto them is still refused.
                        try adopt.bind(survivor, at: 1)
                        try adopt.bind(subscription.id, at: 2)
                        try adopt.run()
                        try adopt.reset()
                        try alias.bind(subscription.url, at: 1)
                        try alias.bind(survivor, at: 2)
                        try alias.run()
                        try alias.reset()
                        try drop.bind(subscription.id, at: 1)
                        try drop.run()
                        try drop.reset()
                    } else {
                        survivors[normal] = subscription.id
                    }
                }
                for subscription in all where survivors[FeedAddress.normalized(subscription.url)] == subscription.id {
                    let normal = FeedAddress.normalized(subscription.url)
                    guard normal != subscription.url else { continue }
                    try alias.bind(subscription.url, at: 1)
                    try alias.bind(subscription.id, at: 2)
                    try alias.run()
                    try alias.reset()
                    try respell.bind(normal, at: 1)
                    try respell.bind(subscription.id, at: 2)
                    try respell.run()
                    try respell.reset()
                }
                // Every record keyed by a feed's address, under its one form (`EpisodeRecords.move`).
                // Where that form has a download record of the same episode already (downloaded
                // once per spelling), the other stays under its old key, with its files.
                let feeds = try connection.prepare(
                    (["downloads"] + EpisodeRecords.tables).map { "SELECT feed FROM \($0)" }.joined(separator: " UNION "))
                for feed in try feeds.rows({ row throws(SQLiteError) in try row.string(at: 0) }) where FeedAddress.normalized(feed) != feed {
                    try EpisodeRecords.move(fromFeed: feed, toFeed: FeedAddress.normalized(feed), in: connection)
                }
                let listing = try connection.prepare("SELECT feed_url FROM current_listing WHERE feed_url IS NOT NULL")
                if let feed = try listing.firstRow({ row throws(SQLiteError) in try row.string(at: 0) }), FeedAddress.normalized(feed) != feed {
                    let respelt = try connection.prepare("UPDATE current_listing SET feed_url = ?1")
                    try respelt.bind(FeedAddress.normalized(feed), at: 1)
                    try respelt.run()
                }
            }
        ),
        Migration(
            summary: "settings records in the schema's one form (StoredSettings), versioned",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                try LegacySettingsRecords.rewrite("batches", "options", with: LegacySettingsRecords.queued, in: connection)
                try LegacySettingsRecords.rewrite("update_requests", "settings", with: LegacySettingsRecords.queued, in: connection)
                try LegacySettingsRecords.rewrite("downloads", "library", with: LegacySettingsRecords.library, in: connection)
            }
        ),
        Migration(
            summary: "which directory the last search asked (its numbers are that directory's)",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                // A file brought back to an earlier version (as the upgrade tests do) may have the
                // column already; ADD COLUMN cannot say "if missing".
                let columns = try connection.prepare("SELECT name FROM pragma_table_info('last_search')")
                guard try !columns.rows({ row throws(SQLiteError) in try row.string(at: 0) }).contains("directory") else { return }
                // Searches stored before there was a choice were iTunes searches.
                try connection.execute("ALTER TABLE last_search ADD COLUMN directory TEXT NOT NULL DEFAULT 'itunes'")
            }
        ),
        Migration(
            summary: "finished batches keep no proxy (a password, perhaps) in their settings",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                // A batch still to run needs its proxy: it keeps it.
                try LegacySettingsRecords.rewrite(
                    "batches", "options", where: "finished_at IS NOT NULL", with: LegacySettingsRecords.withoutProxy, in: connection)
            }
        ),
        Migration(
            summary: "each subscription's own on-episode command",
            sql: "",
            carryOver: { connection throws(SQLiteError) in
                // As above: a file brought back to an earlier version may have the column already.
                let columns = try connection.prepare("SELECT name FROM pragma_table_info('subscriptions')")
                guard try !columns.rows({ row throws(SQLiteError) in try row.string(at: 0) }).contains("on_episode") else { return }
                // NULL: the run's hook, as every subscription had before there was a choice.
                try connection.execute("ALTER TABLE subscriptions ADD COLUMN on_episode TEXT")
            }
        ),
    ]

    /// `identity` as `Episode.identity` makes it now: an enclosure fallback by the URL's key.
    static func renewedIdentity(_ identity: String) -> String {
        guard identity.hasPrefix("enclosure:") else { return identity }
        return "enclosure:" + EnclosureIdentity.key(of: String(identity.dropFirst("enclosure:".count)))
    }

    /// The schema version this build writes: the number of migrations.
    public static var currentSchemaVersion: Int { migrations.count }

    /// Brings the file's schema up to `currentSchemaVersion`, refusing a file from a newer podcast.
    func migrate() throws(StoreError) {
        let known = Self.currentSchemaVersion
        let found = try sqlite { () throws(SQLiteError) in try userVersion() }
        if found == known { return }
        guard found < known else { throw StoreError(.newerSchema(found: found, known: known), path: path) }

        let migrated = try write { () throws(SQLiteError) -> Int in
            // Read again under the write lock: another process may have migrated while we waited for it,
            // and each step must run exactly once.
            let version = try userVersion()
            guard version < known else { return version }
            for (index, migration) in Self.migrations.enumerated().dropFirst(version) {
                try connection.execute(migration.sql)
                try migration.carryOver?(connection)
                // A pragma takes no bound parameters; the value is our own integer.
                try connection.execute("PRAGMA user_version = \(index + 1)")
            }
            return known
        }
        guard migrated <= known else { throw StoreError(.newerSchema(found: migrated, known: known), path: path) }
    }

    /// `PRAGMA user_version`, which this store uses as its schema version.
    func userVersion() throws(SQLiteError) -> Int {
        let statement = try connection.prepare("PRAGMA user_version")
        return try statement.firstRow { row throws(SQLiteError) in try row.int(at: 0) } ?? 0
    }
}
