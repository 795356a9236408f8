import Foundation
@testable import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// devices.json's `automations`: read into triggers, conditions and steps, each mistake reported
/// at its path with what to write instead, an automation that would start itself refused, and
/// what a reload changes said.
@Suite struct AutomationConfigurationTests {
    static func file(location: String? = #"{"latitude": 59.91, "longitude": 10.75}"#, automations: String) -> Data {
        Data(#"""
        { "node": "house",
          \#(location.map { "\"location\": \($0)," } ?? "")
          "chips": [ { "id": "main", "chip": "gpiochip0" } ],
          "devices": [
            { "id": "porch", "type": "relay", "gpio": { "chip": "main", "line": 17 } },
            { "id": "hall", "type": "relay", "gpio": { "chip": "main", "line": 27 } },
            { "id": "door", "type": "input", "gpio": { "chip": "main", "line": 6 } }
          ],
          "controls": [
            { "kind": "porch-light", "device": "porch" },
            { "kind": "hall-light", "device": "hall" },
            { "kind": "door", "device": "door" },
            { "kind": "all-off", "template": "button", "scene": { "porch": false, "hall": false } }
          ],
          "placements": [
            { "id": "porch", "control": "porch-light" }, { "id": "hall", "control": "hall-light" },
            { "id": "door", "control": "door" }, { "id": "all-off", "control": "all-off" }
          ],
          "buttons": [ { "id": "wall", "gpio": { "chip": "main", "line": 5 } } ],
          "automations": \#(automations) }
        """#.utf8)
    }

    static func problems(location: String? = #"{"latitude": 59.91, "longitude": 10.75}"#, _ automations: String) -> [String] {
        do {
            _ = try ConfigurationLoader.load(data: file(location: location, automations: automations))
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func automationsAreRead() throws {
        let configuration = try ConfigurationLoader.load(data: Self.file(automations: #"""
        [ { "id": "hall-on-door", "when": { "control": "door", "becomes": true },
            "if": [ { "control": "porch", "is": false }, { "after": "sunset -30m", "before": "06:00" } ],
            "do": [ { "set": "hall", "value": true }, { "delay": "5m" }, { "set": "hall", "value": false } ] },
          { "id": "door-any", "when": { "control": "door" }, "do": [ { "toggle": "porch" } ] },
          { "id": "wall-double", "when": { "button": "wall", "press": "double" }, "if": [ { "before": "07:00" } ], "do": [ { "press": "all-off" } ] } ]
        """#))
        #expect(configuration.automations.map(\.id) == ["hall-on-door", "door-any", "wall-double"])
        let first = configuration.automations[0]
        #expect(first.trigger == .control(placement: "door", becomes: true))
        #expect(first.conditions == [
            .control(placement: "porch", is: false),
            .time(TimeWindow(after: ScheduleRule(.sunset, offset: .seconds(-1800)), before: ScheduleRule(.time(hour: 6, minute: 0)))),
        ])
        #expect(first.steps == [.action(.set(placement: "hall", value: true)), .delay(.seconds(300)), .action(.set(placement: "hall", value: false))])
        #expect(first.summary == "when door becomes on, if porch is off, between sunset -30m and 06:00: on hall, wait 5m, off hall")
        #expect(configuration.automations[1].trigger == .control(placement: "door", becomes: nil))
        #expect(configuration.automations[1].summary == "when door changes: toggle porch")
        #expect(configuration.automations[2].summary == "when button wall double press, if between 00:00 and 07:00: press all-off")
        // The button listens for double presses, since an automation waits for one.
        #expect(configuration.buttons[0].doubleWindow == .milliseconds(300))
    }

    @Test func anAnnouncementIsALineOfText() throws {
        let configuration = try ConfigurationLoader.load(data: Self.file(automations: #"[ { "id": "a", "when": { "control": "door", "becomes": true }, "do": [ { "announce": "Door open" }, { "toggle": "porch" } ] } ]"#))
        #expect(configuration.automations.first?.steps == [.announce("Door open"), .action(.toggle(placement: "porch"))])
        let refusal = #"automations[0].do[0].announce: expected a line of text to say, 1 to 200 characters, without control characters"#
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "do": [ { "announce": " " } ] } ]"#) == [refusal])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "do": [ { "announce": "a\u001bb" } ] } ]"#) == [refusal])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "do": [ { "announce": "\#(String(repeating: "x", count: 201))" } ] } ]"#) == [refusal])
    }

    @Test func eachMistakeIsReportedWhereItIs() {
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "garden", "becomes": true }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].when.control: "garden" is not a placement; placements: porch, hall, door, all-off"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "all-off" }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].when.control: "all-off" is a button (or a scene), which has no value; use a toggle's placement (an input, a relay, another system's device)"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "button": "kitchen", "press": "short" }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].when.button: "kitchen" is not a button of "buttons"; buttons: wall"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "button": "wall", "press": "triple" }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].when.press: "triple" is not one of "short", "double", "long""#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "door": "open" }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [
                #"automations[0].when: expected {"control": "<placement>", "becomes": true|false} or {"button": "<button>", "press": "short"|"double"|"long"}"#,
                #"automations[0].when.door: is not a known key here; expected one of control, button"#,
            ])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door", "becomes": "open" }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].when.becomes: expected true (on, open, active) or false, found "open"; leave it out for any change"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" } } ]"#)
            == [#"automations[0].do: is required: what the automation does, such as [{"set": "hall", "value": true}]"#])
        #expect(Self.problems(#"[ { "id": "a", "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].when: is required: what starts the automation, such as {"control": "door", "becomes": true} or {"button": "hall", "press": "short"}"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "if": [ { "after": "6pm" } ], "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].if[0].after: "6pm" is not a time: write "HH:MM" (24-hour, such as "18:00"), "sunrise" or "sunset", with an offset if you like ("sunset -30m")"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "if": [ { "after": "06:00", "before": "06:00" } ], "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].if[0]: "after" and "before" are the same time: the window would be empty"#])
        #expect(Self.problems(location: nil, #"[ { "id": "a", "when": { "control": "door" }, "if": [ { "after": "sunset" } ], "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].if[0]: sunrise and sunset are computed from the node's place: add "location": {"latitude": …, "longitude": …} at the top of the file"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "if": [ { "control": "garden", "is": true }, { "control": "porch" } ], "do": [ { "toggle": "porch" } ] } ]"#)
            == [
                #"automations[0].if[1].is: is required with "control": true (on, open, active) or false"#,
                #"automations[0].if[0].control: "garden" is not a placement; placements: porch, hall, door, all-off"#,
            ])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "door" }, "do": [ { "delay": "soon" }, { "delay": "25h" }, { "press": "porch" }, { "set": "garden", "value": true } ] } ]"#)
            == [
                #"automations[0].do[0].delay: "soon" is not a delay: a duration such as "30s", "5m" or "1h30m", more than 0 and at most 24h"#,
                #"automations[0].do[1].delay: "25h" is not a delay: a duration such as "30s", "5m" or "1h30m", more than 0 and at most 24h"#,
                #"automations[0].do[2]: "porch" is a toggle: use {"set": …, "value": …} or {"toggle": …}"#,
                #"automations[0].do[3]: "garden" is not a placement; placements: porch, hall, door, all-off"#,
            ])
        #expect(Self.problems(#"[ { "id": "a b", "when": { "control": "door" }, "do": [ { "toggle": "porch" } ] }, { "id": "a b", "when": { "control": "door" }, "do": [ { "toggle": "hall" } ] } ]"#)
            == [
                #"automations[0].id: "a b" must be letters, digits, "-" or "_""#,
                #"automations[1].id: "a b" must be letters, digits, "-" or "_""#,
                #"automations[1].id: "a b" is used by automations[0] too; each id must be unique"#,
            ])
    }

    /// An action that changes the value its own trigger waits for would start the automation
    /// again at once: refused. Switching it the other way (an auto-off) is allowed.
    @Test func anAutomationThatWouldStartItselfIsRefused() {
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "porch", "becomes": true }, "do": [ { "delay": "1s" }, { "set": "porch", "value": true } ] } ]"#)
            == [#"automations[0].do[1]: on porch changes "porch", which this automation's trigger watches ("becomes": true): it would start itself again; act on another placement, or trigger on the other value"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "porch" }, "do": [ { "toggle": "porch" } ] } ]"#)
            == [#"automations[0].do[0]: toggle porch changes "porch", which this automation's trigger watches (any change): it would start itself again; act on another placement, or trigger on the other value"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "hall", "becomes": false }, "do": [ { "press": "all-off" } ] } ]"#)
            == [#"automations[0].do[0]: press all-off changes "hall", which this automation's trigger watches ("becomes": false): it would start itself again; act on another placement, or trigger on the other value"#])
        #expect(Self.problems(#"[ { "id": "a", "when": { "control": "porch", "becomes": true }, "do": [ { "delay": "5m" }, { "set": "porch", "value": false }, { "press": "all-off" } ] } ]"#) == [])
    }

    @Test func applySaysWhichAutomationsChanged() throws {
        let old = try ConfigurationLoader.load(data: Self.file(automations: #"""
        [ { "id": "a", "when": { "control": "door" }, "do": [ { "toggle": "porch" } ] },
          { "id": "b", "when": { "control": "door" }, "do": [ { "toggle": "hall" } ] } ]
        """#))
        let new = try ConfigurationLoader.load(data: Self.file(automations: #"""
        [ { "id": "b", "when": { "control": "door", "becomes": true }, "do": [ { "toggle": "hall" } ] },
          { "id": "c", "when": { "button": "wall", "press": "long" }, "do": [ { "press": "all-off" } ] } ]
        """#))
        #expect(old.changes(to: new) == [
            "automation b changed: when door becomes on: toggle hall",
            "automation c added: when button wall long press: press all-off",
            "automation a removed",
        ])
    }

    /// devices.schema.json accepts the automations the loader reads, and refuses a trigger
    /// without its press, an empty condition and no steps, as the loader does.
    @Test func theSchemaAgreesWithTheLoader() async throws {
        let file = NSTemporaryDirectory() + "switchboard-automations-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try AutomationDaemonTests.configuration.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(ConfigurationCorpusTests.problems(file) == [])
        #expect(Self.problems(#"[ { "id": "a", "when": { "button": "wall" }, "if": [ {} ], "do": [] } ]"#).count == 3)
        let script = """
        import json, sys, jsonschema
        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1] + '/devices.schema.json')))
        print(len(list(validator.iter_errors(json.load(open(sys.argv[2]))))))
        broken = {'node': 'house', 'automations': [{'id': 'a', 'when': {'button': 'wall'}, 'if': [{}], 'do': []}]}
        print(len(list(validator.iter_errors(broken))))
        """
        let result = await DaemonHarness.run("/usr/bin/env", ["python3", "-c", script, RepositoryFiles.root, file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "0\n3\n", "\(result.stdout)")
    }
}
