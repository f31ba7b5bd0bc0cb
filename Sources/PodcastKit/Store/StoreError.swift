import CSQLite
import PodcastPlatform

/// A state store failure: what went wrong, with which file, and (in `description`) what the user can do.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The directory that holds the store could not be created.
        case cannotCreateDirectory(SystemError)
        /// SQLite could not open or create the file.
        case cannotOpen(reason: String)
        /// The file exists but is not an SQLite database.
        case notADatabase
        /// The file is an SQLite database whose contents are damaged.
        case corrupt(reason: String)
        /// The file was written by a newer podcast whose schema this version does not know.
        case newerSchema(found: Int, known: Int)
        /// Another process held the store locked for longer than the busy timeout.
        case busy
        /// The file or its directory cannot be written.
        case readOnly
        /// The disk is full.
        case diskFull
        /// A record whose stored settings this version cannot read (`background batch 3: …`).
        case unreadableRecord(String)
        /// Any other SQLite failure.
        case sqlite(code: Int32, message: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The database file (or, for `cannotCreateDirectory`, the directory) concerned.
    public var path: String

    /// Creates an error of `kind` for the store at `path`.
    public init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// One line: what failed, for which file, and what to do about it.
    public var description: String {
        switch kind {
        case .cannotCreateDirectory(let error):
            return "cannot create the state directory \(path): \(error.reason); "
                + "create it yourself or set PODCAST_HOME to a writable directory"
        case .cannotOpen(let reason):
            return "cannot open the state store \(path): \(reason); "
                + "check that its directory exists and is writable, or set PODCAST_HOME to another directory"
        case .notADatabase:
            return "the state store \(path) is not an SQLite database; "
                + "move it aside (for example to \(path).bad) and run podcast again to start a new one"
        case .corrupt(let reason):
            return "the state store \(path) is damaged (\(reason)); "
                + "move it aside (for example to \(path).bad) and run podcast again to start a new one"
        case .newerSchema(let found, let known):
            return "the state store \(path) was written by a newer podcast version "
                + "(schema \(found), this version knows up to \(known)); "
                + "upgrade podcast, or move the file aside to start a new one with this version"
        case .busy:
            return "the state store \(path) stayed locked by another podcast process; "
                + "wait for it to finish and try again"
        case .readOnly:
            return "cannot write the state store \(path): it is read-only; "
                + "make it and its directory writable, or set PODCAST_HOME to another directory"
        case .diskFull:
            return "cannot write the state store \(path): the disk is full; free some space and try again"
        case .unreadableRecord(let what):
            return "the state store \(path) holds \(what); run the podcast version that wrote it, "
                + "or move the store aside (for example to \(path).bad) to start a new one"
        case .sqlite(let code, let message):
            return "the state store \(path) failed: \(message) (SQLite error \(code)); "
                + "try again, and report a bug if it keeps failing"
        }
    }
}

extension StoreError {
    /// The one place SQLite result codes become store errors.
    init(_ error: SQLiteError, path: String) {
        let kind: Kind
        if let record = error.unreadableRecord {
            self.init(.unreadableRecord(record), path: path)
            return
        }
        switch error.primaryCode {
        case SQLITE_NOTADB: kind = .notADatabase
        case SQLITE_CORRUPT: kind = .corrupt(reason: error.message)
        case SQLITE_CANTOPEN: kind = .cannotOpen(reason: error.message)
        // BUSY reaches here only after the busy timeout ran out; LOCKED is the in-process equivalent.
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_READONLY: kind = .readOnly
        case SQLITE_FULL: kind = .diskFull
        default: kind = .sqlite(code: error.code, message: error.message)
        }
        self.init(kind, path: path)
    }
}
