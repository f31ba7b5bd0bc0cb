import CSQLite

/// A finished file on its way to its name (`placements`): written before the move, forgotten with
/// the record that names the file. What the next run needs to know, after a kill -9 between the
/// two, that the file it finds under one of the episode's names is the one podcast moved there.
public struct Placement: Sendable, Equatable {
    /// The episode.
    public var key: EpisodeKey
    /// Which file it is (its ctime is not kept: the move changes it).
    public var device: UInt64
    /// Which file it is.
    public var inode: UInt64
    /// Its size.
    public var bytes: Int64
    /// Its SHA-256, lowercase hex.
    public var sha256: String

    /// Creates one.
    public init(key: EpisodeKey, device: UInt64, inode: UInt64, bytes: Int64, sha256: String) {
        self.key = key
        self.device = device
        self.inode = inode
        self.bytes = bytes
        self.sha256 = sha256
    }
}

/// The placements table: each finished file recorded before its move to its name, until the
/// record that names it is written.
struct Placements {
    let store: StateStore

    /// Records that the files of `placements` are about to take their names, in one transaction.
    func record(_ placements: [Placement]) throws(StoreError) {
        guard !placements.isEmpty else { return }
        try store.write { () throws(SQLiteError) in
            let insert = try store.prepared("""
                INSERT OR REPLACE INTO placements (feed, identity, device, inode, bytes, sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """)
            for placement in placements {
                try insert.bind(placement.key.feed, at: 1)
                try insert.bind(placement.key.identity, at: 2)
                try insert.bind(Int64(bitPattern: placement.device), at: 3)
                try insert.bind(Int64(bitPattern: placement.inode), at: 4)
                try insert.bind(placement.bytes, at: 5)
                try insert.bind(placement.sha256, at: 6)
                try insert.run()
                try insert.reset()
            }
        }
    }

    /// The placement a run recorded for `key` and did not finish, if any.
    func recorded(for key: EpisodeKey) throws(StoreError) -> Placement? {
        try store.read { () throws(SQLiteError) -> Placement? in
            let query = try store.prepared("SELECT device, inode, bytes, sha256 FROM placements WHERE feed = ?1 AND identity = ?2")
            try query.bind(key.feed, at: 1)
            try query.bind(key.identity, at: 2)
            return try query.firstRow { row throws(SQLiteError) in
                Placement(
                    key: key, device: UInt64(bitPattern: try row.int64(at: 0)), inode: UInt64(bitPattern: try row.int64(at: 1)),
                    bytes: try row.int64(at: 2), sha256: try row.string(at: 3))
            }
        }
    }

    /// Forgets the placements of `keys`: their files are recorded, or never moved.
    func forget(_ keys: [EpisodeKey]) throws(StoreError) {
        guard !keys.isEmpty else { return }
        try store.write { () throws(SQLiteError) in
            let delete = try store.prepared("DELETE FROM placements WHERE feed = ?1 AND identity = ?2")
            for key in keys {
                try delete.bind(key.feed, at: 1)
                try delete.bind(key.identity, at: 2)
                try delete.run()
                try delete.reset()
            }
        }
    }
}
