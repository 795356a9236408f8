#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// What survives a restart: every output's last value, the placements people added or configured
/// at runtime, running auto-off deadlines, and the lock state.
public struct PersistedState: Sendable, Codable, Equatable {
    /// A placement made at runtime (`switchboard add`, `configure`).
    public struct Placement: Sendable, Codable, Equatable {
        public var id: String
        public var control: String
        public var space: String
        public var size: String?
        public var device: String?
    }

    public var version = 1
    /// Output device id → its last logical value.
    public var outputs: [String: Bool] = [:]
    /// Placements added at runtime, and configuration changes of configured ones.
    public var placements: [Placement] = []
    /// Placement ids from devices.json that were removed at runtime.
    public var removedPlacements: [String] = []
    /// Device id → when its auto-off fires, in seconds since 1970 (wall clock, so it survives a reboot).
    public var autoOff: [String: Double] = [:]
    public var locked = false
    /// The Home Assistant discovery topics an older version recorded here; read only to carry them
    /// over to ``HomeAssistantRecord`` (`home-assistant.json`), then nil.
    public var announced: [String]?
    /// Schedule id → its last run (``ScheduleRunRecord``), so that a restart does not repeat it.
    public var scheduleRuns: [String: ScheduleRunRecord]?
    /// The schedules paused with `switchboard schedule pause`.
    public var pausedSchedules: [String]?
    /// Blind id → its position when its motor last stopped (``CoverPositionRecord``).
    public var coverPositions: [String: CoverPositionRecord]?
    /// Automation id → its last run: when it started and what it did (``AutomationService``).
    public var automationRuns: [String: ScheduleRunRecord]?
    /// The automations paused with `switchboard automation pause`.
    public var pausedAutomations: [String]?

    public init() {}
}

/// The node's state on disk: a snapshot, `state.json`, and a journal, `state.journal`, of the
/// output changes made since.
///
/// - An output change appends one line to the journal (one `write`): a few microseconds, and
///   whole or absent however the daemon dies (kill -9 included); a torn last line (a power cut
///   mid-write) is ignored when loading.
/// - Other changes (placements, lock, auto-off) write a new snapshot: a temporary file renamed
///   over the old one, so it is the old state or the new one; then the journal starts again.
/// - A journal of 1,000 lines or more is due for compaction (``compactionMark``): the flusher, off
///   the command path, writes the state of that moment as a snapshot (``compact(_:at:)``) while
///   commands go on appending; the lines they appended meanwhile stay in the journal.
/// - ``save(_:)`` and ``record(output:value:in:)`` leave the data to the kernel; ``flush()`` puts
///   it on storage (a ``CoalescedAction`` calls it at most once a second while changes come), so a
///   power cut loses at most the last second of changes and a burst of commands is one storage
///   write.
public final class StateFile: Sendable {
    /// `<state-dir>/state.json`.
    public let path: String
    /// `<state-dir>/state.journal`.
    public let journalPath: String
    /// Journal lines from which the journal is due for compaction.
    public static let compactionThreshold = 1_000

    /// The journal at the moment a state was taken for compaction: the lines that state holds.
    /// Taken with ``compactionMark`` under the same lock as the state, so that it holds every
    /// line before the mark.
    public struct CompactionMark: Sendable, Equatable {
        /// The journal's whole lines at the mark.
        public let lines: Int
        /// Snapshots written before the mark: a snapshot saved since supersedes the compaction.
        let snapshots: Int
        /// Whether the journal is due for compaction (``compactionThreshold`` lines or more).
        public var isDue: Bool { lines >= StateFile.compactionThreshold }
    }

    private struct Journal {
        /// The open journal (O_APPEND), or -1 before the first change.
        var descriptor: Int32 = -1
        var lines = 0
        /// Snapshots written so far (``save(_:)``, ``compact(_:at:)``).
        var snapshots = 0
    }

    // Invariant: the journal descriptor is only used under the mutex and closed once, in deinit.
    private let journal = Locked(Journal())
    /// One compaction at a time: each writes ``compactionName``. (The hubs of a reload share
    /// the node's state file, and the old one's flusher may run its last compaction while the
    /// new one's runs its first.) Never held with ``journal`` held.
    private let compactions = Locked(())
    /// The state directory, open (nil if it could not be opened: every use says why).
    private let directory: StateDirectory?
    private let openError: SystemCallError?
    /// Where writes and syncs go.
    private let storage: any StateFileStorage

    static let snapshotName = "state.json"
    static let temporaryName = "state.json.tmp"
    /// The compaction's snapshot until it is renamed: a name of its own, since a ``save(_:)`` may
    /// write ``temporaryName`` meanwhile.
    static let compactionName = "state.json.compacting"
    static let journalName = "state.journal"

    /// The state in a checked state directory (``StateDirectory/open(_:user:)``): its files are
    /// reached through the open directory, never through a link.
    /// - Parameter storage: where writes and syncs go (a test's faults; the system's by default).
    public init(directory: StateDirectory, storage: any StateFileStorage = SystemStateFileStorage()) {
        path = directory.path + "/" + Self.snapshotName
        journalPath = directory.path + "/" + Self.journalName
        self.directory = directory
        openError = nil
        self.storage = storage
    }

    /// The state in a folder of one's own, opened unchecked (a link in place of the folder or a
    /// file is still never followed).
    /// - Parameter storage: where writes and syncs go (a test's faults; the system's by default).
    public init(directory: String, storage: any StateFileStorage = SystemStateFileStorage()) {
        path = directory + "/" + Self.snapshotName
        journalPath = directory + "/" + Self.journalName
        self.storage = storage
        switch Result(catching: { () throws(SystemCallError) in try StateDirectory.unchecked(directory) }) {
        case .success(let opened):
            self.directory = opened
            openError = nil
        case .failure(let error):
            self.directory = nil
            openError = error
        }
    }

    /// The state directory, when it could be opened (its other files are reached through it).
    var stateDirectory: StateDirectory? { directory }

    /// The open directory, or why there is none.
    private func folder(for path: String) throws(StateFileError) -> OpenDirectory {
        guard let directory else { throw StateFileError(path: path, reason: "cannot be reached: its folder cannot be opened (\(openError.map(String.init(describing:)) ?? "unknown"))") }
        return directory.directory
    }

    deinit {
        journal.withLock { if $0.descriptor >= 0 { SystemCall.close($0.descriptor) } }
    }

    /// The saved state: the snapshot with the journal's changes applied; an empty state if there
    /// is none yet.
    /// - Throws: ``StateFileError`` if the snapshot exists but cannot be read as state.
    public func load() throws(StateFileError) -> PersistedState {
        var state = PersistedState()
        let folder = try folder(for: path)
        let bytes: [UInt8]?
        switch Result(catching: { () throws(SystemCallError) in try folder.read(Self.snapshotName) }) {
        case .success(let read): bytes = read
        case .failure(let error): throw StateFileError(path: path, reason: "cannot be read (\(error))")
        }
        if let bytes {
            let data = Data(bytes)
            do {
                state = try CheckedJSON.decode(PersistedState.self, from: data)
            } catch {
                let what = data.isEmpty ? "is empty" : "is not a Switchboard state file (\(error))"
                throw StateFileError(path: path, reason: what)
            }
        }
        applyJournal(to: &state)
        return state
    }

    /// The saved state, or — when the snapshot cannot be read (a power cut during a write on a
    /// card that lies about its writes, a truncated or foreign file) — the journal's outputs over
    /// an empty state, with the node locked to be safe, and the unreadable file moved aside as
    /// `state.json.unreadable-<time>` so nothing is lost and the next save starts clean.
    /// - Returns: the state, and what happened when it had to be recovered.
    public func loadRecovering(now: Date = Date()) -> (state: PersistedState, recovery: String?) {
        do {
            return (try load(), nil)
        } catch {
            var seconds = time_t(now.timeIntervalSince1970), parts = tm()
            gmtime_r(&seconds, &parts)
            var text = [CChar](repeating: 0, count: 32)
            let length = strftime(&text, text.count, "%Y%m%dT%H%M%SZ", &parts)
            let stamp = String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let aside = path + ".unreadable-" + stamp
            let asideName = Self.snapshotName + ".unreadable-" + stamp
            let why: String
            switch Result(catching: { () throws(StateFileError) in try folder(for: path) }) {
            case .success(let folder):
                switch Result(catching: { () throws(SystemCallError) in try folder.rename(Self.snapshotName, to: asideName) }) {
                case .success: why = ""
                case .failure(let error): why = String(describing: error)
                }
            case .failure(let error): why = String(describing: error)
            }
            let moved = why.isEmpty
            var state = PersistedState()
            state.locked = true
            applyJournal(to: &state)
            let outputs = state.outputs.isEmpty ? "outputs from devices.json's restore policies" : "outputs from the journal (\(journalPath)) and devices.json's restore policies"
            return (state, "\(error.description); \(moved ? "it was moved to \(aside)" : "it could not be moved aside (\(why))"); started with \(outputs), placements from devices.json, and the node locked (switchboard unlock)")
        }
    }

    /// Applies the journal's whole lines to `state`.
    private func applyJournal(to state: inout PersistedState) {
        if let data = (try? folder(for: journalPath).read(Self.journalName)) ?? nil {
            // Only whole lines count: a line without its newline was torn by a power cut.
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
                let fields = line.split(separator: UInt8(ascii: "\t"))
                guard fields.count == 3, fields[0].elementsEqual("o".utf8), fields[2].count == 1 else { continue }
                state.outputs[String(decoding: fields[1], as: UTF8.self)] = fields[2].first == UInt8(ascii: "1")
            }
        }
    }

    /// Records one output's new value: a journal line (one `write`, no wait for storage), or, for
    /// an id a line cannot hold, a snapshot of `state`, which must hold the change. It never
    /// compacts the journal: see ``compactionMark``.
    public func record(output id: String, value: Bool, in state: PersistedState) throws {
        let line = !id.contains("\t") && !id.contains("\n")
        if line {
            try journal.withLock { journal in
                if journal.descriptor < 0 {
                    journal.descriptor = try Self.open(Self.journalName, O_WRONLY | O_CREAT | O_APPEND, in: try folder(for: journalPath), path: journalPath, failing: "cannot be opened")
                }
                try write(Array("o\t\(id)\t\(value ? 1 : 0)\n".utf8), to: journal.descriptor, path: journalPath)
                journal.lines += 1
            }
        } else {
            try save(state)
        }
    }

    /// The journal's mark when it is due for compaction (``compactionThreshold`` lines or more),
    /// nil otherwise. Take it under the lock that orders the changes with the state given to
    /// ``compact(_:at:)``, so that the state holds every line before the mark.
    public var compactionMark: CompactionMark? {
        let mark = self.mark
        return mark.isDue ? mark : nil
    }

    /// The journal's mark now, due or not: for a snapshot of a change saved later
    /// (``DeviceHub/updatePersistedLater(_:)``).
    public var mark: CompactionMark {
        journal.withLock { CompactionMark(lines: $0.lines, snapshots: $0.snapshots) }
    }

    /// Writes `state`, which holds the journal's lines up to `mark`, as the new snapshot, and
    /// keeps only the lines appended since the mark in the journal. The snapshot is written and
    /// put on storage without holding the journal, so ``record(output:value:in:)`` goes on
    /// meanwhile; the journal is held only to rename it and, after the folder is synced, to
    /// rewrite the lines after the mark.
    /// A snapshot saved after the mark (``save(_:)``) is newer: then this one is dropped.
    /// - Returns: whether the snapshot replaced the saved one.
    @discardableResult
    public func compact(_ state: PersistedState, at mark: CompactionMark) throws -> Bool {
        try compactions.withLock { _ in try compactInTurn(state, at: mark) }
    }

    /// ``compact(_:at:)``, in its turn.
    private func compactInTurn(_ state: PersistedState, at mark: CompactionMark) throws -> Bool {
        let data = try Self.encode(state)
        let folder = try folder(for: path)
        do {
            try writeSynced(data, named: Self.compactionName, in: folder)
        } catch {
            try? folder.remove(Self.compactionName)
            throw error
        }
        let renamed = try journal.withLock { journal throws -> Bool in
            guard journal.snapshots == mark.snapshots else { return false }
            if case .failure(let error) = Result(catching: { () throws(SystemCallError) in try folder.rename(Self.compactionName, to: Self.snapshotName) }) {
                throw StateFileError(path: path, reason: "cannot be replaced: \(error.errno.message)")
            }
            journal.snapshots += 1
            return true
        }
        guard renamed else {
            try? folder.remove(Self.compactionName)
            return false
        }
        // The new snapshot's name on storage before the journal loses the lines it holds; the
        // journal is not held meanwhile (a crash now replays lines the snapshot repeats).
        folder.sync()
        journal.withLock { journal in
            // A snapshot saved since started the journal again itself.
            guard journal.snapshots == mark.snapshots + 1 else { return }
            // The lines after the mark are newer than the snapshot: they stay, as the new journal.
            let lines = ((try? folder.read(Self.journalName)) ?? nil) ?? []
            Self.startJournal(&journal, keeping: Self.lines(of: lines, after: mark.lines), count: max(0, journal.lines - mark.lines), in: folder)
        }
        return true
    }

    /// The bytes of `journal` after its first `count` lines.
    static func lines(of journal: [UInt8], after count: Int) -> [UInt8] {
        var seen = 0
        var index = journal.startIndex
        while seen < count, let newline = journal[index...].firstIndex(of: UInt8(ascii: "\n")) {
            seen += 1
            index = newline + 1
        }
        return Array(journal[index...])
    }

    /// Replaces the saved state with a new snapshot and starts the journal again.
    public func save(_ state: PersistedState) throws {
        let data = try Self.encode(state)
        let folder = try folder(for: path)
        try journal.withLock { journal in
            try writeSynced(data, named: Self.temporaryName, in: folder)
            if case .failure(let error) = Result(catching: { () throws(SystemCallError) in try folder.rename(Self.temporaryName, to: Self.snapshotName) }) {
                throw StateFileError(path: path, reason: "cannot be replaced: \(error.errno.message)")
            }
            journal.snapshots += 1
            // The snapshot holds everything the journal said; lines replayed over it after a
            // crash before this truncation only repeat it.
            Self.startJournal(&journal, keeping: [], count: 0, in: folder)
        }
    }

    /// Writes a snapshot's bytes to `name` in the state directory and puts them on storage: before
    /// it replaces the old snapshot, so a power cut leaves one or the other, never an empty file
    /// under the real name (``flush()`` syncs the folder).
    private func writeSynced(_ data: Data, named name: String, in folder: OpenDirectory) throws(StateFileError) {
        let filePath = String(path.dropLast(Self.snapshotName.count)) + name
        let descriptor = try Self.open(name, O_WRONLY | O_CREAT | O_TRUNC, in: folder, path: filePath, failing: "cannot be created")
        defer { SystemCall.close(descriptor) }
        try write(Array(data), to: descriptor, path: filePath)
        try sync(descriptor, path: filePath)
    }

    /// Starts the journal again with `tail` (whole lines, `count` of them), newer than the snapshot.
    private static func startJournal(_ journal: inout Journal, keeping tail: [UInt8], count: Int, in folder: OpenDirectory) {
        if journal.descriptor >= 0 { SystemCall.close(journal.descriptor) }
        journal.descriptor = -1
        if tail.isEmpty {
            journal.descriptor = (try? folder.openFile(journalName, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, mode: 0o640)) ?? -1
        } else if (try? folder.replace(journalName, with: tail, mode: 0o640, durable: false)) != nil {
            journal.descriptor = (try? folder.openFile(journalName, O_WRONLY | O_APPEND, mode: 0o640)) ?? -1
        }
        journal.lines = count
    }

    /// A state as the snapshot holds it: JSON with sorted keys.
    private static func encode(_ state: PersistedState) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(state)
    }

    /// Puts what was saved on storage: syncs the journal, the snapshot and their folder.
    public func flush() {
        journal.withLock { journal in
            if journal.descriptor >= 0 { try? storage.sync(journal.descriptor) }
        }
        guard let folder = try? folder(for: path) else { return }
        if let file = try? folder.openFile(Self.snapshotName, O_RDONLY) {
            try? storage.sync(file)
            SystemCall.close(file)
        }
        folder.sync()
    }

    /// Opens a file of the state directory, never through a link.
    private static func open(_ name: String, _ flags: Int32, in folder: OpenDirectory, path: String, failing: String) throws(StateFileError) -> Int32 {
        switch Result(catching: { () throws(SystemCallError) in try folder.openFile(name, flags, mode: 0o640) }) {
        case .success(let descriptor):
            return descriptor
        case .failure(let error):
            let link = error.errno == .tooManySymbolicLinkLevels ? " (it is a symbolic link, never followed: remove it)" : ""
            throw StateFileError(path: path, reason: "\(failing): \(error.errno.message)\(link)")
        }
    }

    private func sync(_ descriptor: Int32, path: String) throws(StateFileError) {
        do {
            try storage.sync(descriptor)
        } catch {
            throw StateFileError(path: path, reason: "cannot be synced to storage: \(error.message)")
        }
    }

    private func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(StateFileError) {
        do {
            try storage.write(bytes, to: descriptor)
        } catch {
            throw StateFileError(path: path, reason: "cannot be written: \(error.message)")
        }
    }
}

/// The state file could not be read or written.
public struct StateFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "state file \(path) \(reason)" }
}
