import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// A switch never waits for storage: the journal's compaction into a snapshot (JSON, `fsync`,
/// `rename`) is the flusher's, off the command path, and the state it writes is the one of its
/// mark, with the lines after it kept.
@Suite(.timeLimit(.minutes(1)))
struct StateCompactionTests {
    static let sample = try! String(contentsOfFile: RepositoryFiles.samplePath, encoding: .utf8)

    /// The sample's devices on a simulated chip, their state in a temporary folder through storage
    /// that counts syncs, on a manual clock.
    struct Node {
        let folder: TemporaryFolder
        let storage = StateFileTests.CountingStorage()
        let file: StateFile
        let clock = ManualClock()
        let hub: DeviceHub

        init() throws {
            folder = try TemporaryFolder()
            file = StateFile(directory: folder.path, storage: storage)
            let configuration = try ConfigurationLoader.load(data: Data(StateCompactionTests.sample.utf8))
            hub = try DeviceHub(configuration: configuration, chips: ["main": SimulatedGPIOChip(lineCount: 54)], persisted: PersistedState(), stateFile: file, clock: clock)
        }
    }

    @Test func switchesPastTheThresholdSyncNothingAndTheFlusherCompactsTheJournal() async throws {
        let node = try Node()
        let (file, storage, clock, hub) = (node.file, node.storage, node.clock, node.hub)
        let flusher = try #require(hub.flusher)

        for index in 0...StateFile.compactionThreshold {
            try await hub.set("porch", to: index % 2 == 0)
        }
        #expect(storage.syncs.withLock { $0 } == 0, "a switch waited for storage")
        #expect(!FileManager.default.fileExists(atPath: file.path), "a switch wrote a snapshot")
        #expect(file.compactionMark?.lines == StateFile.compactionThreshold + 1)

        let flushing = Task { await flusher.run() }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        // The flusher compacts, then syncs the journal, the snapshot and their folder.
        while storage.syncs.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        flushing.cancel()
        await flushing.value
        withExtendedLifetime(node) {}

        #expect(file.compactionMark == nil)
        #expect(try String(contentsOfFile: file.journalPath, encoding: .utf8) == "")
        let saved = try file.load()
        #expect(saved.outputs["porch"] == true, "the 1,001st switch (on) is in the snapshot")
        #expect(saved == hub.persisted)
    }

    @Test func aChangeSavedLaterWaitsForNothingAndTheFlusherWritesIt() async throws {
        let node = try Node()
        let (file, storage, clock, hub) = (node.file, node.storage, node.clock, node.hub)
        let flusher = try #require(hub.flusher)
        try hub.updatePersisted { $0.autoOff["fan"] = 1_800_000_000 }
        let synced = storage.syncs.withLock { $0 }

        hub.updatePersistedLater { $0.autoOff["fan"] = nil }
        #expect(storage.syncs.withLock { $0 } == synced, "the change waited for storage")
        #expect(try file.load().autoOff == ["fan": 1_800_000_000], "not saved yet")
        #expect(hub.persisted.autoOff == [:])

        let flushing = Task { await flusher.run() }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        while try file.load().autoOff != [:] { try await Task.sleep(for: .milliseconds(5)) }
        flushing.cancel()
        await flushing.value
        withExtendedLifetime(node) {}
        #expect(try file.load() == hub.persisted)
    }
}
