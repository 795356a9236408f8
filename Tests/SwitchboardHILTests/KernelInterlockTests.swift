import ControlKit
import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// Interlocks on the kernel's lines: a blind's up and down relays on gpio-sim lines 1 and 2,
/// requested through libgpiod and switched through the node's control center, the way every
/// command (CLI, MQTT, Home Assistant, Swift intents, auto-off) reaches them. After every write
/// the test reads both lines' levels back from gpio-sim (`LineHistoryChip`): the two lines are
/// never high together, and the dead time separates one going low from the other going high.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelInterlockTests {
    static func configuration(deadTime: String) -> String {
        #"""
        {
          "node": "hil-blind",
          "chips": [ { "id": "main", "chip": "sb-blind" } ],
          "devices": [
            { "id": "up", "name": "Blind Up", "type": "relay", "gpio": { "chip": "main", "line": 1 }, "restore": "last" },
            { "id": "down", "name": "Blind Down", "type": "relay", "gpio": { "chip": "main", "line": 2 }, "restore": "last" }
          ],
          "controls": [
            { "kind": "up", "template": "toggle", "title": "Blind Up", "device": "up" },
            { "kind": "down", "template": "toggle", "title": "Blind Down", "device": "down" }
          ],
          "placements": [ { "id": "up", "control": "up" }, { "id": "down", "control": "down" } ],
          "interlocks": [ { "id": "blind", "devices": ["up", "down"], "deadTime": "\#(deadTime)" } ]
        }
        """#
    }

    /// The blind's node on a new gpio-sim chip (a label of its own for each test), its lines'
    /// history kept.
    func node(_ label: String, deadTime: String, persisted: PersistedState = PersistedState()) async throws -> (NodeRuntime, LineHistoryChip, KernelSimulatedChip) {
        let simulated = try KernelSimulatedChip(label: label, lineCount: 4)
        let chip = LineHistoryChip(try LibgpiodChip(path: simulated.path), guarded: [1, 2]) { try simulated.level($0) }
        let configuration = try ConfigurationLoader.load(data: Data(Self.configuration(deadTime: deadTime).utf8))
        let node = try await NodeRuntime(configuration: configuration, chips: ["main": chip], persisted: persisted, stateFile: nil, log: Log())
        return (node, chip, simulated)
    }

    @Test func commandsRacingEachOtherNeverHaveBothLinesHigh() async throws {
        let (node, chip, simulated) = try await node("sb-blind-race", deadTime: "0s")
        let center = node.center
        // 400 commands from 8 tasks at once, with no dead time to space them out.
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        let placement = (task + index) % 2 == 0 ? "up" : "down"
                        _ = try? await center.perform(placement, index % 5 == 4 ? .setValue(false) : .setValue(true))
                    }
                }
            }
        }
        let writes = chip.writes
        #expect(chip.overlaps.isEmpty, "\(chip.overlaps)")
        #expect(writes.filter(\.high).count > 50, "the lines really took turns: \(writes.count) writes")
        let levels = [try simulated.level(1), try simulated.level(2)]
        #expect(levels.filter { $0 }.count <= 1)
        #expect(try [node.hub.value(of: "up"), node.hub.value(of: "down")] == levels, "the node says what the kernel's lines are")
        node.shutdown()
    }

    @Test func theDeadTimeSeparatesOneLineGoingLowFromTheOtherGoingHigh() async throws {
        let (node, chip, simulated) = try await node("sb-blind-dead", deadTime: "50ms")
        _ = try await node.center.perform("up", .setValue(true))
        #expect(try simulated.level(1) == true)
        _ = try await node.center.perform("down", .setValue(true))
        #expect(try [simulated.level(1), simulated.level(2)] == [false, true])
        let writes = chip.writes
        #expect(writes.map { "\($0.line)=\($0.high ? 1 : 0)" } == ["1=1", "1=0", "2=1"])
        if writes.count == 3 {
            let gap = writes[2].at - writes[1].at
            #expect(gap >= .milliseconds(50), "line 2 went high \(gap) after line 1 went low, each read back from gpio-sim")
        }
        #expect(chip.overlaps.isEmpty, "\(chip.overlaps)")
        node.shutdown()
    }

    @Test func aRestoreThatWouldTurnBothOnLeavesBothLinesLow() async throws {
        var persisted = PersistedState()
        persisted.outputs = ["up": true, "down": true]
        let (node, chip, simulated) = try await node("sb-blind-restore", deadTime: "0s", persisted: persisted)
        #expect(try [simulated.level(1), simulated.level(2)] == [false, false])
        #expect(chip.overlaps.isEmpty, "\(chip.overlaps)")
        node.shutdown()
    }
}
