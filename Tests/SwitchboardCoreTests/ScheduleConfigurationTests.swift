import Foundation
@testable import SwitchboardCore
import Testing
@testable import SwitchboardConfiguration

/// devices.json's `location` and `schedules`: read into rules and actions, each mistake reported
/// at its path with what to write instead, and what a reload changes said in full.
@Suite struct ScheduleConfigurationTests {
    static func file(location: String? = #"{"latitude": 59.91, "longitude": 10.75}"#, schedules: String) -> Data {
        Data(#"""
        { "node": "house",
          \#(location.map { "\"location\": \($0)," } ?? "")
          "chips": [ { "id": "main", "chip": "gpiochip0" } ],
          "devices": [ { "id": "porch", "type": "relay", "gpio": { "chip": "main", "line": 17 } } ],
          "controls": [
            { "kind": "porch-light", "device": "porch" },
            { "kind": "all-off", "template": "button", "scene": { "porch": false } }
          ],
          "placements": [ { "id": "porch", "control": "porch-light" }, { "id": "all-off", "control": "all-off" } ],
          "schedules": \#(schedules) }
        """#.utf8)
    }

    static func problems(location: String? = #"{"latitude": 59.91, "longitude": 10.75}"#, _ schedules: String) -> [String] {
        do {
            _ = try ConfigurationLoader.load(data: file(location: location, schedules: schedules))
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func schedulesAndTheLocationAreRead() throws {
        let configuration = try ConfigurationLoader.load(data: Self.file(schedules: #"""
        [ { "id": "dusk", "at": "sunset", "offset": "-15m", "days": ["mon", "fri"], "actions": [ { "set": "porch", "value": true } ] },
          { "id": "night", "at": "23:30", "actions": [ { "press": "all-off" }, { "toggle": "porch" } ] } ]
        """#))
        #expect(configuration.location == NodeLocation(latitude: 59.91, longitude: 10.75))
        #expect(configuration.schedules.map(\.id) == ["dusk", "night"])
        #expect(configuration.schedules[0].rule == ScheduleRule(.sunset, offset: .seconds(-900), days: [.mon, .fri]))
        #expect(configuration.schedules[0].actions == [.set(placement: "porch", value: true)])
        #expect(configuration.schedules[1].rule == ScheduleRule(.time(hour: 23, minute: 30)))
        #expect(configuration.schedules[1].actions == [.press(placement: "all-off"), .toggle(placement: "porch")])
    }

    @Test func eachMistakeIsReportedWhereItIs() {
        #expect(Self.problems(#"[ { "id": "a", "at": "7:30", "actions": [ { "toggle": "porch" } ] } ]"#)
            == [#"schedules[0].at: "7:30" is not a time: write "HH:MM" (24-hour, such as "07:30"; "HH:MM:SS" for seconds), "sunrise" or "sunset""#])
        #expect(Self.problems(#"[ { "id": "a", "at": "07:30", "days": ["monday"], "actions": [ { "toggle": "porch" } ] } ]"#)
            == [#"schedules[0].days[0]: "monday" is not a day: use "mon", "tue", "wed", "thu", "fri", "sat", "sun""#])
        #expect(Self.problems(#"[ { "id": "a", "at": "07:30", "actions": [ { "toggle": "garden" } ] } ]"#)
            == [#"schedules[0].actions[0]: "garden" is not a placement; placements: porch, all-off"#])
        #expect(Self.problems(location: nil, #"[ { "id": "a", "at": "sunrise", "actions": [ { "toggle": "porch" } ] } ]"#)
            == [#"schedules[0].at: sunrise is computed from the node's place: add "location": {"latitude": …, "longitude": …} at the top of the file"#])
        #expect(Self.problems(#"[ { "id": "a", "at": "sunset", "offset": "soon", "actions": [ { "press": "porch" }, { "set": "all-off", "value": true }, { "set": "porch" } ] } ]"#)
            == [
                #"schedules[0].offset: "soon" is not an offset: a duration with a sign, such as "-15m" or "+1h30m", at most 12h"#,
                #"schedules[0].actions[2].value: is required with "set": true (on) or false (off)"#,
                #"schedules[0].actions[0]: "porch" is a toggle: use {"set": …, "value": …} or {"toggle": …}"#,
                #"schedules[0].actions[1]: "all-off" is a button (or a scene): use {"press": "all-off"}"#,
            ])
        #expect(Self.problems(location: #"{"latitude": 91, "longitude": 10.75}"#, "[]")
            == [#"location.latitude: expected a number of degrees from -90 to 90 (north, negative south, such as 59.91), found 91"#])
        let twice = Self.problems(#"[ { "id": "a", "at": "07:30", "actions": [] }, { "id": "a", "at": "07:30", "actions": [ { "toggle": "porch" } ] } ]"#)
        #expect(twice.first == #"schedules[0].actions: is required: what the schedule does, such as [{"set": "porch", "value": true}]"#, "\(twice)")
        #expect(twice.contains { $0.hasPrefix("schedules[1].id:") }, "\(twice)")
    }

    @Test func applyListsWhatChangedInASchedule() throws {
        let before = try ConfigurationLoader.load(data: Self.file(schedules: #"""
        [ { "id": "dusk", "at": "sunset", "actions": [ { "set": "porch", "value": true } ] },
          { "id": "night", "at": "23:30", "actions": [ { "press": "all-off" } ] } ]
        """#))
        let after = try ConfigurationLoader.load(data: Self.file(schedules: #"""
        [ { "id": "dusk", "at": "sunset", "offset": "-15m", "actions": [ { "set": "porch", "value": true } ] },
          { "id": "morning", "at": "07:00", "days": ["sat", "sun"], "actions": [ { "toggle": "porch" } ] } ]
        """#))
        #expect(before.changes(to: after) == [
            "schedule dusk changed: sunset -15m: on porch",
            "schedule morning added: 07:00 on sat, sun: toggle porch",
            "schedule night removed",
        ])
        #expect(before.changes(to: before) == [])
    }
}
