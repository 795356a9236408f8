import Foundation
import SwitchboardCore
import Testing
@testable import SwitchboardConfiguration

/// What `switchboard apply` says a reload changed (``SwitchboardConfiguration/changes(to:)``):
/// every part of devices.json that a reload acts on, the safety features first among them, and
/// nothing that did not change.
@Suite struct ConfigurationChangesTests {
    func load(_ text: String) throws -> SwitchboardConfiguration {
        try ConfigurationLoader.load(data: Data(text.utf8))
    }

    @Test func interlocksAddedRemovedAndChangedAreSaid() throws {
        let before = try load(InterlockTests.configuration)
        let removed = try load(InterlockTests.configuration.replacingOccurrences(of: #""interlocks": [ { "id": "blind", "devices": ["up", "down"], "deadTime": "500ms" } ]"#, with: #""interlocks": []"#))
        #expect(before.changes(to: removed) == ["interlock blind removed: up and down may now be on together"])
        #expect(removed.changes(to: before) == ["interlock blind added"])
        let slower = try load(InterlockTests.configuration.replacingOccurrences(of: #""deadTime": "500ms""#, with: #""deadTime": "2s""#))
        #expect(before.changes(to: slower) == ["interlock blind changed: dead time 500ms → 2s"])
        let wider = try load(InterlockTests.configuration
            .replacingOccurrences(of: #""devices": ["up", "down"], "deadTime": "500ms""#, with: #""devices": ["up", "down", "tilt"], "deadTime": "1s""#)
            .replacingOccurrences(of: "\"devices\": [\n", with: #""devices": [ { "id": "tilt", "name": "Blind Tilt", "type": "relay", "gpio": { "chip": "main", "line": 22 } },"# + "\n"))
        #expect(before.changes(to: wider) == ["device tilt added", "interlock blind changed: devices up, down → up, down, tilt; dead time 500ms → 1s"])
    }

    @Test func buttonsChangedAreSaid() throws {
        let before = try load(ButtonServiceTests.configuration)
        let after = try load(ButtonServiceTests.configuration.replacingOccurrences(of: #""double": "fan""#, with: #""double": "porch""#))
        #expect(before.changes(to: after) == ["button hall changed"])
    }

    /// Foundation's decoder gives an object's keys in an order of its own; a scene sets its
    /// devices in the order written (interlocked outputs care), and a reload compares scenes.
    @Test func aScenesStepsAreInTheOrderWritten() throws {
        let ids = (0..<24).map { "d\(($0 * 7) % 24)" }
        let devices = ids.enumerated().map { #"{ "id": "\#($0.element)", "name": "D\#($0.offset)", "type": "relay", "gpio": { "chip": "main", "line": \#($0.offset) } }"# }
        let text = """
        { "node": "n", "chips": [ { "id": "main", "chip": "header" } ],
          "devices": [ \(devices.joined(separator: ", ")) ],
          "controls": [ { "kind": "scene", "template": "button", "scene": { \(ids.map { "\"\($0)\": false" }.joined(separator: ", ")) } } ],
          "placements": [ { "id": "scene", "control": "scene" } ] }
        """
        for _ in 0..<5 {
            #expect(try load(text).control("scene")?.scene?.map(\.device) == ids)
        }
    }

    @Test func anUnchangedFileWithScenesChangesNothing() throws {
        let text = SceneTests().configuration(port: 1883)
        let changes = try load(text).changes(to: try load(text))
        #expect(changes == [], "\(changes)")
    }
}
