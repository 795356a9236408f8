import Foundation
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

@Suite struct StateFileTests {
    @Test func savesAndLoadsAndLeavesNoTemporaryFile() throws {
        let folder = try TemporaryFolder()
        let file = StateFile(directory: folder.path)
        #expect(try file.load() == PersistedState())
        var state = PersistedState()
        state.outputs = ["porch": true, "fan": false]
        state.autoOff = ["fan": 1_800_000_000]
        state.locked = true
        try file.save(state)
        #expect(try file.load() == state)
        #expect(!FileManager.default.fileExists(atPath: file.path + ".tmp"))
    }

    @Test func outputChangesAreJournalLinesOverTheSnapshotAndATornLineIsIgnored() throws {
        let folder = try TemporaryFolder()
        let file = StateFile(directory: folder.path)
        var state = PersistedState()
        state.outputs = ["porch": false, "fan": false]
        state.locked = true
        try file.save(state)
        state.outputs["porch"] = true
        try file.record(output: "porch", value: true, in: state)
        state.outputs["fan"] = true
        try file.record(output: "fan", value: true, in: state)
        #expect(try String(contentsOfFile: file.journalPath, encoding: .utf8) == "o\tporch\t1\no\tfan\t1\n")
        #expect(try file.load() == state)

        // A power cut in the middle of a line: the torn line is not a change.
        let handle = try #require(FileHandle(forWritingAtPath: file.journalPath))
        handle.seekToEndOfFile()
        handle.write(Data("o\tporch\t".utf8))
        try handle.close()
        #expect(try file.load() == state)

        // A new snapshot starts the journal again.
        try file.save(state)
        #expect(try String(contentsOfFile: file.journalPath, encoding: .utf8) == "")
        #expect(try file.load() == state)
    }

    /// Storage that counts the syncs made through it.
    final class CountingStorage: StateFileStorage {
        let syncs = Locked(0)
        func write(_ bytes: [UInt8], to descriptor: Int32) throws(Errno) { try SystemStateFileStorage().write(bytes, to: descriptor) }
        func sync(_ descriptor: Int32) throws(Errno) {
            syncs.withLock { $0 += 1 }
            try SystemStateFileStorage().sync(descriptor)
        }
    }

    /// Switches porch `count` times in `file`, off first, as the hub records them.
    static func switchPorch(_ count: Int, in file: StateFile, _ state: inout PersistedState) throws {
        for index in 0..<count {
            state.outputs["porch"] = index % 2 == 1
            try file.record(output: "porch", value: index % 2 == 1, in: state)
        }
    }

    /// A state file whose journal is just due for compaction, with its state and mark.
    static func journalDueForCompaction() throws -> (TemporaryFolder, StateFile, PersistedState, StateFile.CompactionMark) {
        let folder = try TemporaryFolder()
        let file = StateFile(directory: folder.path)
        var state = PersistedState()
        try switchPorch(StateFile.compactionThreshold, in: file, &state)
        return (folder, file, state, try #require(file.compactionMark))
    }

    @Test func recordingNeverWritesASnapshotAndALongJournalIsDueForCompaction() throws {
        let folder = try TemporaryFolder()
        let storage = CountingStorage()
        let file = StateFile(directory: folder.path, storage: storage)
        var state = PersistedState()
        try Self.switchPorch(StateFile.compactionThreshold - 1, in: file, &state)
        #expect(file.compactionMark == nil)
        state.outputs["porch"] = false
        try file.record(output: "porch", value: false, in: state)
        state.outputs["fan"] = true
        try file.record(output: "fan", value: true, in: state)
        #expect(storage.syncs.withLock { $0 } == 0, "no change waited for storage")
        #expect(!FileManager.default.fileExists(atPath: file.path), "no snapshot was written on the way")
        #expect(file.compactionMark?.lines == StateFile.compactionThreshold + 1)
        #expect(try file.load() == state)
    }

    @Test func compactionKeepsTheLinesAppendedAfterItsMark() throws {
        let (folder, file, marked, mark) = try Self.journalDueForCompaction()
        var state = marked
        // Commands go on while the snapshot is written.
        state.outputs["fan"] = true
        try file.record(output: "fan", value: true, in: state)
        state.outputs["porch"] = false
        try file.record(output: "porch", value: false, in: state)

        #expect(try file.compact(marked, at: mark))
        #expect(try String(contentsOfFile: file.journalPath, encoding: .utf8) == "o\tfan\t1\no\tporch\t0\n")
        #expect(try JSONDecoder().decode(PersistedState.self, from: Data(contentsOf: URL(fileURLWithPath: file.path))) == marked)
        #expect(try file.load() == state)
        #expect(file.compactionMark == nil)
        // The journal goes on after the lines it kept.
        state.outputs["porch"] = true
        try file.record(output: "porch", value: true, in: state)
        #expect(try String(contentsOfFile: file.journalPath, encoding: .utf8) == "o\tfan\t1\no\tporch\t0\no\tporch\t1\n")
        #expect(try file.load() == state)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json.compacting"))
    }

    @Test func aCompactionWithNothingAfterItsMarkEmptiesTheJournal() throws {
        let folder = try TemporaryFolder()
        let file = StateFile(directory: folder.path)
        var state = PersistedState()
        try Self.switchPorch(StateFile.compactionThreshold + 1, in: file, &state)
        #expect(try file.compact(state, at: #require(file.compactionMark)))
        #expect(try String(contentsOfFile: file.journalPath, encoding: .utf8) == "")
        #expect(try file.load() == state)
    }

    /// Storage whose syncs wait while `held` is set, counting the syncs waiting.
    final class HeldStorage: StateFileStorage {
        let state = Locked((held: false, waiting: 0))
        func write(_ bytes: [UInt8], to descriptor: Int32) throws(Errno) { try SystemStateFileStorage().write(bytes, to: descriptor) }
        func sync(_ descriptor: Int32) throws(Errno) {
            state.withLock { $0.waiting += 1 }
            while state.withLock({ $0.held }) { usleep(1_000) }
            state.withLock { $0.waiting -= 1 }
            try SystemStateFileStorage().sync(descriptor)
        }
        var waiting: Int { state.withLock { $0.waiting } }
    }

    @Test func aSecondCompactionWaitsForTheFirst() async throws {
        // The hubs of a reload share the node's state file: the old one's flusher may compact
        // while the new one's does. The second must not write the first's temporary file
        // between its sync and its rename.
        let folder = try TemporaryFolder()
        let storage = HeldStorage()
        let file = StateFile(directory: folder.path, storage: storage)
        var state = PersistedState()
        try Self.switchPorch(StateFile.compactionThreshold, in: file, &state)
        let mark = try #require(file.compactionMark)
        var other = state
        other.outputs["fan"] = true
        let (first, second) = (state, other)

        storage.state.withLock { $0.held = true }
        async let firstDone = onThread { try file.compact(first, at: mark) }
        while storage.waiting < 1 { try await Task.sleep(for: .milliseconds(2)) }
        async let secondDone = onThread { try file.compact(second, at: mark) }
        // Long enough for the second to reach its own sync, were it not waiting for the first.
        for _ in 0..<100 where storage.waiting < 2 { try await Task.sleep(for: .milliseconds(3)) }
        storage.state.withLock { $0.held = false }

        #expect(try await [firstDone, secondDone] == [true, false], "the first's state is the snapshot; the second, of the same mark, is dropped")
        #expect(try file.load() == first)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json.compacting"))
    }

    @Test func aSnapshotSavedAfterTheMarkWinsOverTheCompaction() throws {
        let (folder, file, marked, mark) = try Self.journalDueForCompaction()
        var state = marked
        // `switchboard lock` meanwhile: a snapshot of its own.
        state.locked = true
        try file.save(state)

        #expect(try !file.compact(marked, at: mark), "the older state does not replace the newer one")
        #expect(try file.load() == state)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state.json.compacting"))
    }

    @Test func corruptStateFileIsMovedAsideAndTheNodeStartsLocked() throws {
        let folder = try TemporaryFolder()
        let directory = folder.path
        try "{\"outputs\": 3}".write(toFile: directory + "/state.json", atomically: true, encoding: .utf8)
        try "o\tfan\t1\n".write(toFile: directory + "/state.journal", atomically: true, encoding: .utf8)
        let file = StateFile(directory: directory)
        #expect { try file.load() } throws: { String(describing: $0).hasPrefix("state file \(directory)/state.json is not a Switchboard state file (") }
        let (state, recovery) = file.loadRecovering(now: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(state.outputs == ["fan": true])
        #expect(state.locked)
        #expect(state.placements.isEmpty)
        #expect(recovery?.hasSuffix("; it was moved to \(directory)/state.json.unreadable-20261118T110640Z; started with outputs from the journal (\(directory)/state.journal) and devices.json's restore policies, placements from devices.json, and the node locked (switchboard unlock)") == true, "\(recovery ?? "")")
        #expect(try String(contentsOfFile: directory + "/state.json.unreadable-20261118T110640Z", encoding: .utf8) == "{\"outputs\": 3}")
        #expect(!FileManager.default.fileExists(atPath: directory + "/state.json"))
        #expect(file.loadRecovering().recovery == nil, "nothing left to recover")
    }
}

@Suite struct AutoOffScheduleTests {
    let start = OffsetInstant(offset: .seconds(100))

    @Test func countdownShowsMinutesAndSecondsRoundedUp() {
        var schedule = AutoOffSchedule()
        schedule.start("fan", at: start, duration: .seconds(600))
        #expect(schedule.status("fan", at: start) == "Off in 10:00")
        #expect(schedule.status("fan", at: start.advanced(by: .milliseconds(19_001))) == "Off in 9:41")
        #expect(schedule.status("porch", at: start) == nil)
    }

    @Test func wakesWhenTheShownSecondChangesAndAtTheDeadline() {
        var schedule = AutoOffSchedule()
        #expect(schedule.nextWake(after: start) == nil)
        schedule.start("fan", at: start, duration: .seconds(10))
        #expect(schedule.nextWake(after: start) == start.advanced(by: .seconds(1)))
        #expect(schedule.nextWake(after: start.advanced(by: .milliseconds(1300))) == start.advanced(by: .seconds(2)))
        #expect(schedule.nextWake(after: start.advanced(by: .milliseconds(9500))) == start.advanced(by: .seconds(10)))
    }

    @Test func dueDevicesAreTakenOnce() {
        var schedule = AutoOffSchedule()
        schedule.start("fan", at: start, duration: .seconds(5))
        schedule.start("pump", at: start, duration: .seconds(8))
        #expect(schedule.takeDue(at: start.advanced(by: .milliseconds(4999))) == [])
        #expect(schedule.takeDue(at: start.advanced(by: .seconds(5))) == ["fan"])
        #expect(schedule.takeDue(at: start.advanced(by: .seconds(6))) == [])
        schedule.cancel("pump")
        #expect(schedule.takeDue(at: start.advanced(by: .seconds(9))) == [])
    }
}
