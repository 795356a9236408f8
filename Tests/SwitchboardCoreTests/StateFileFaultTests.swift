import Foundation
import SwitchboardCore
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// The state file on storage that fails as a full or broken disk does, through its storage seam
/// (``StateFileStorage``): no tmpfs to mount, no root needed. (FullStateDirectoryTests fills a
/// real disk.)
@Suite(.timeLimit(.minutes(1)))
struct StateFileFaultTests {
    /// Storage whose writes or syncs fail with an errno once `failing` is set.
    final class FaultyStorage: StateFileStorage {
        let failing = Locked<(write: Errno?, sync: Errno?)>((nil, nil))

        func write(_ bytes: [UInt8], to descriptor: Int32) throws(Errno) {
            if let error = failing.withLock({ $0.write }) { throw error }
            try SystemStateFileStorage().write(bytes, to: descriptor)
        }

        func sync(_ descriptor: Int32) throws(Errno) {
            if let error = failing.withLock({ $0.sync }) { throw error }
            try SystemStateFileStorage().sync(descriptor)
        }
    }

    @Test func aFullDiskFailsTheJournalLineAndTheSnapshotAndKeepsWhatWasSaved() throws {
        let folder = try TemporaryFolder()
        let storage = FaultyStorage()
        let file = StateFile(directory: folder.path, storage: storage)
        var state = PersistedState()
        state.outputs = ["porch": false]
        try file.save(state)

        storage.failing.withLock { $0.write = .noSpace }
        state.outputs["porch"] = true
        #expect(throws: StateFileError.self) { try file.record(output: "porch", value: true, in: state) }
        do {
            try file.record(output: "porch", value: true, in: state)
        } catch {
            #expect("\(error)" == "state file \(file.journalPath) cannot be written: No space left on device")
        }
        do {
            try file.save(state)
            Issue.record("a snapshot was saved on a full disk")
        } catch {
            #expect("\(error)" == "state file \(file.path).tmp cannot be written: No space left on device")
        }
        #expect(try file.load().outputs == ["porch": false], "the last state saved is still there")

        storage.failing.withLock { $0 = (nil, .ioError) }
        do {
            try file.save(state)
            Issue.record("a snapshot that could not be synced replaced the saved one")
        } catch {
            #expect("\(error)" == "state file \(file.path).tmp cannot be synced to storage: Input/output error")
        }
        #expect(try file.load().outputs == ["porch": false])

        storage.failing.withLock { $0 = (nil, nil) }
        try file.save(state)
        #expect(try file.load().outputs == ["porch": true], "saves again once the disk has room")
    }
}
