/// What one kind of setting takes, and how its typed value is read from and written as a
/// `SettingValue`: the one place a setting's text is checked, whichever layer it comes from
/// (file, command line, stored record).
struct SettingKind<Value>: @unchecked Sendable {
    /// What it takes, for messages and help: `a whole number from 1 to 16`.
    let takes: String
    /// The typed value of `value`; throws when `value` is not one (nil detail: not what it takes).
    let read: (SettingValue) throws(SettingProblem) -> Value
    /// The value as written outside: typed, as `podcast config --json` and stored records hold it.
    let value: (Value) -> SettingValue
    /// The value as the configuration file writes it, when that differs from `value`'s TOML
    /// (`"16G"` rather than `17179869184`).
    var written: ((Value) -> String?)? = nil
    /// How a command-line argument becomes a `SettingValue` (`"5"` is the number 5 for a number).
    var commandLine: (String) -> SettingValue = { .text($0) }
    /// What must hold on this machine now (a file that must be readable): checked when the value
    /// is given, never when a record made earlier is read back, which must always read.
    var present: ((Value) throws(SettingProblem) -> Void)? = nil
}

/// Why a value is not one a setting takes: nil `detail` means "not what it takes".
struct SettingProblem: Error {
    var detail: String?
    static let notTaken = SettingProblem(detail: nil)
}

extension SettingKind where Value == Int {
    /// A whole number in `range`, of `unit` when given (`seconds`).
    static func whole(_ range: ClosedRange<Int>, unit: String? = nil) -> SettingKind {
        let of = unit.map { " of \($0)" } ?? ""
        let takes = range.upperBound == Int(Int32.max)
            ? "a whole number\(of), \(range.lowerBound) or more" : "a whole number\(of) from \(range.lowerBound) to \(range.upperBound)"
        return SettingKind(
            takes: takes,
            read: { (value) throws(SettingProblem) -> Int in
                guard case .integer(let number) = value, let whole = Int(exactly: number), range.contains(whole) else { throw .notTaken }
                return whole
            },
            value: { .integer(Int64($0)) }, commandLine: { Int64($0).map(SettingValue.integer) ?? .text($0) })
    }
}

extension SettingKind where Value == Duration {
    /// Seconds, fractions allowed (`0.5`), in `range`.
    static func seconds(_ range: ClosedRange<Double>, example: String) -> SettingKind {
        SettingKind(
            takes: range.lowerBound > 0
                ? "a number of seconds from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound)), such as \(example)"
                : "a number of seconds, more than 0 and at most \(Self.plain(range.upperBound)), such as \(example)",
            read: { (value) throws(SettingProblem) -> Duration in
                let seconds: Double
                switch value {
                case .integer(let whole): seconds = Double(whole)
                case .number(let fraction): seconds = fraction
                default: throw .notTaken
                }
                // Kept in whole milliseconds: a value that rounds to none is none.
                let milliseconds = (seconds * 1000).rounded()
                guard range.contains(seconds), milliseconds >= 1 else { throw .notTaken }
                return .milliseconds(Int64(milliseconds))
            },
            value: { duration in
                let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
                return milliseconds % 1000 == 0 ? .integer(milliseconds / 1000) : .number(Double(milliseconds) / 1000)
            },
            commandLine: { text in Int64(text).map(SettingValue.integer) ?? Double(text).map(SettingValue.number) ?? .text(text) })
    }

    private static func plain(_ number: Double) -> String {
        number == number.rounded() ? "\(Int(number))" : "\(number)"
    }
}

extension SettingKind where Value == Int64 {
    /// A number of bytes: a whole number, or text with k, M or G (`"16G"`).
    static var size: SettingKind {
        SettingKind(
            takes: "a size such as \"16G\" or \"500M\" (k, M, G), or a number of bytes",
            read: { (value) throws(SettingProblem) -> Int64 in try Self.bytes(value) },
            value: { .integer($0) }, written: { Self.written($0) })
    }

    /// `"16G"` when the count is a whole number of a unit, else the plain number (`500000`).
    static func written(_ bytes: Int64) -> String {
        let text = ByteCount.written(bytes)
        return text.allSatisfy(\.isNumber) ? text : SettingValue.quoted(text)
    }

    fileprivate static func bytes(_ value: SettingValue) throws(SettingProblem) -> Int64 {
        switch value {
        case .integer(let number) where number > 0: return number
        case .text(let text): if let bytes = ByteCount.parse(text) { return bytes }
        default: break
        }
        throw .notTaken
    }
}

extension SettingKind where Value == Int? {
    /// A speed in bytes per second (`"2M"`, `500000`), or none.
    static var rate: SettingKind {
        SettingKind(
            takes: "a speed in bytes per second such as \"500k\" or \"2M\" (k, M, G), or a number",
            read: { (value) throws(SettingProblem) -> Int? in
                if value == .none { return nil }
                return Int(clamping: try SettingKind<Int64>.bytes(value))
            },
            value: { $0.map { .integer(Int64($0)) } ?? .none }, written: { $0.map { SettingKind<Int64>.written(Int64($0)) } })
    }
}

extension SettingKind where Value == Bool {
    static var boolean: SettingKind {
        SettingKind(
            takes: "true or false",
            read: { (value) throws(SettingProblem) -> Bool in
                guard case .boolean(let flag) = value else { throw .notTaken }
                return flag
            },
            value: { .boolean($0) })
    }
}

extension SettingKind where Value == String {
    /// Text that `check` accepts (returning the value to keep, or throwing why not).
    static func text(_ takes: String, _ check: @escaping (String) throws(SettingProblem) -> String = { $0 }) -> SettingKind {
        SettingKind(
            takes: takes,
            read: { (value) throws(SettingProblem) -> String in
                guard case .text(let text) = value else { throw .notTaken }
                return try check(text)
            },
            value: { .text($0) })
    }
}

extension SettingKind where Value == String? {
    /// Text that `check` accepts, or none; `present` is what must hold on this machine now.
    static func optionalText(
        _ takes: String, _ check: @escaping (String) throws(SettingProblem) -> Void = { _ in }, present: ((String?) throws(SettingProblem) -> Void)? = nil
    ) -> SettingKind {
        SettingKind(
            takes: takes,
            read: { (value) throws(SettingProblem) -> String? in
                if value == .none { return nil }
                guard case .text(let text) = value else { throw .notTaken }
                try check(text)
                return text
            },
            value: { $0.map(SettingValue.text) ?? .none }, present: present)
    }
}

extension SettingKind where Value == [String] {
    /// A list of text (one text stands for a list of it), each of which `check` accepts.
    static func list(_ takes: String, _ check: @escaping (String) throws(SettingProblem) -> Void) -> SettingKind {
        SettingKind(
            takes: takes,
            read: { (value) throws(SettingProblem) -> [String] in
                let items = try SettingKind.items(value)
                for item in items { try check(item) }
                return items
            },
            value: { .list($0) }, commandLine: { .list([$0]) })
    }

    /// The texts of a list, or of one text.
    static func items(_ value: SettingValue) throws(SettingProblem) -> [String] {
        switch value {
        case .list(let items): return items
        case .text(let one): return [one]
        default: throw .notTaken
        }
    }
}

extension SettingKind where Value == NameTemplate {
    static var nameTemplate: SettingKind {
        SettingKind(
            takes: "a template such as \"{podcast}/{date} {title}.{ext}\"",
            read: { (value) throws(SettingProblem) -> NameTemplate in
                guard case .text(let text) = value else { throw .notTaken }
                do throws(NameTemplateError) { return try NameTemplate(text) } catch { throw SettingProblem(detail: "\(error)") }
            },
            value: { .text($0.text) })
    }
}

extension SettingKind where Value == Set<Companion> {
    static var companions: SettingKind {
        SettingKind(
            takes: "a list of companion files such as [\"transcript\", \"chapters\"] (transcript, chapters, image, info)",
            read: { (value) throws(SettingProblem) -> Set<Companion> in
                let words = try SettingKind<[String]>.items(value)
                do throws(LibraryValueError) { return try Companion.set(from: words) } catch { throw SettingProblem(detail: "\(error)") }
            },
            value: { .list($0.sorted().map(\.rawValue)) }, commandLine: { .list([$0]) })
    }
}

extension SettingKind where Value == [TranscriptFormat] {
    static var transcriptTypes: SettingKind {
        SettingKind(
            takes: "a list of transcript types in order of preference, such as [\"srt\", \"vtt\"]",
            read: { (value) throws(SettingProblem) -> [TranscriptFormat] in
                let words = try SettingKind<[String]>.items(value)
                do throws(LibraryValueError) { return try TranscriptFormat.order(from: words) } catch { throw SettingProblem(detail: "\(error)") }
            },
            value: { .list($0.map(\.rawValue)) }, commandLine: { .list([$0]) })
    }
}
