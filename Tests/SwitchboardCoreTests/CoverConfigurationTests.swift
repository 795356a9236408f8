import Foundation
import SwitchboardCore
import Testing
@testable import SwitchboardConfiguration

/// `covers` in devices.json: a blind on two interlocked relays with travel times and end stops,
/// a garage door on a pulse and reed switches, each refused precisely when something is missing.
@Suite struct CoverConfigurationTests {
    static let devices = #"""
        { "id": "blind-up", "name": "Blind Up", "type": "relay", "gpio": { "chip": "main", "line": 20 } },
        { "id": "blind-down", "name": "Blind Down", "type": "relay", "gpio": { "chip": "main", "line": 21 } },
        { "id": "blind-top", "name": "Blind Top", "type": "input", "gpio": { "chip": "main", "line": 22 } },
        { "id": "blind-bottom", "name": "Blind Bottom", "type": "input", "gpio": { "chip": "main", "line": 23 } },
        { "id": "garage-opener", "name": "Garage Opener", "type": "pulse", "gpio": { "chip": "main", "line": 24 } },
        { "id": "garage-closed", "name": "Garage Closed", "type": "input", "gpio": { "chip": "main", "line": 25 } }
    """#

    static func file(covers: String, interlocks: String = #"[ { "id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "500ms" } ]"#, extra: String = "") -> String {
        """
        {
          "node": "house",
          "chips": [ { "id": "main", "chip": "header" } ],
          "devices": [ \(devices) ],
          "interlocks": \(interlocks),
          "covers": \(covers)\(extra)
        }
        """
    }

    static let valid = file(covers: #"""
    [
      { "id": "blind", "name": "Living Room Blind", "open": "blind-up", "close": "blind-down", "openTime": "20s", "closeTime": "18s",
        "opened": "blind-top", "closed": "blind-bottom" },
      { "id": "garage", "name": "Garage Door", "pulse": "garage-opener", "travelTime": "15s", "closed": "garage-closed" }
    ]
    """#, extra: #"""
    ,
      "placements": [ { "id": "blind", "control": "blind" }, { "id": "blind-stop", "control": "blind-stop" }, { "id": "garage", "control": "garage" } ]
    """#)

    static func problems(_ text: String) -> [String] {
        do {
            _ = try ConfigurationLoader.load(data: Data(text.utf8))
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func aBlindAndAGarageDoorAreRead() throws {
        let configuration = try ConfigurationLoader.load(data: Data(Self.valid.utf8))
        #expect(configuration.covers.count == 2)
        let blind = try #require(configuration.covers.first)
        #expect(blind.drive == .motor(open: "blind-up", close: "blind-down", openTime: .seconds(20), closeTime: .seconds(18)))
        #expect(blind.opened == "blind-top" && blind.closed == "blind-bottom")
        #expect(blind.deviceClass == "blind")
        let garage = try #require(configuration.covers.last)
        #expect(garage.drive == .pulse(device: "garage-opener", travelTime: .seconds(15)))
        #expect(garage.deviceClass == "garage")
        #expect(configuration.cover(ofKind: "blind-stop")?.id == "blind")
    }

    @Test func aBlindWithoutAnInterlockIsRefusedWithTheInterlockToAdd() {
        let text = Self.file(covers: #"[ { "id": "blind", "open": "blind-up", "close": "blind-down", "openTime": "20s", "closeTime": "18s" } ]"#, interlocks: "[]")
        #expect(Self.problems(text) == [
            #"covers[0].open: "blind-up" and "blind-down" must be in one interlock, so that they are never on together: add {"id": "blind", "devices": ["blind-up", "blind-down"], "deadTime": "500ms"} to "interlocks""#,
        ])
    }

    @Test func missingTravelTimesWrongKindsAndBadClassesAreEachNamed() {
        let text = Self.file(covers: #"""
        [
          { "id": "blind", "open": "blind-up", "close": "blind-top", "openTime": "20s", "deviceClass": "garage_door" },
          { "id": "garage", "pulse": "blind-down", "travelTime": "15s" },
          { "id": "shed", "name": "Shed" }
        ]
        """#)
        #expect(Self.problems(text) == [
            #"covers[0].closeTime: is required: how long a full travel takes, timed once with a stopwatch ("20s")"#,
            #"covers[0].deviceClass: "garage_door" is not a device class of a Home Assistant cover, which Home Assistant would refuse; use one of "awning", "blind", "curtain", "damper", "door", "garage", "gate", "shade", "shutter", "window", or leave it out"#,
            #"covers[1].closed: is required for a garage door (or "opened"): a reed switch is how its state is known"#,
            #"covers[2]: give "open" and "close" (a blind's two relays, with "openTime" and "closeTime") or "pulse" (a garage door's opener, with "travelTime")"#,
            #"covers[1].pulse: "blind-down" is a relay device; a garage door's opener is a pulse device"#,
        ])
    }

    @Test func aDeviceServesOneCoverAndAControlKindIsNotTakenTwice() {
        let text = Self.file(covers: #"""
        [
          { "id": "garage", "pulse": "garage-opener", "travelTime": "15s", "closed": "garage-closed" },
          { "id": "gate", "pulse": "garage-opener", "travelTime": "15s", "closed": "blind-top", "opened": "blind-top" }
        ]
        """#, extra: #"""
        ,
          "controls": [ { "kind": "garage", "template": "button", "device": "garage-opener" } ]
        """#)
        #expect(Self.problems(text) == [
            #"covers[0].id: "garage" brings the control "garage", which controls has already; rename the cover or that control"#,
            #"covers[1].pulse: "garage-opener" belongs to cover "garage" already; a device serves one cover"#,
            #"covers[1].closed: "blind-top" belongs to cover "gate" already; a device serves one cover"#,
            #"covers[1].closed: "blind-top" is the "opened" contact too; give each end its own input"#,
        ])
    }

    @Test func applyListsACoverThatChanged() throws {
        let before = try ConfigurationLoader.load(data: Data(Self.valid.utf8))
        let after = try ConfigurationLoader.load(data: Data(Self.valid.replacingOccurrences(of: "\"15s\"", with: "\"18s\"").utf8))
        #expect(before.changes(to: after) == ["cover garage changed"])
    }
}
