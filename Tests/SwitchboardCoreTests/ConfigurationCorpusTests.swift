import Foundation
import SwitchboardCore
import SwitchboardGPIO
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration
import SwitchboardSupport

/// Broken devices.json files, each rejected with every problem's exact path and message.
@Suite struct ConfigurationCorpusTests {
    static let corpus = Bundle.module.resourceURL!.appendingPathComponent("Corpus")
    static let cases = ["not-json", "wrong-types", "missing-fields", "duplicates", "references", "unknown-keys", "line-range", "header-lines", "cycles", "inputs", "home-assistant", "node-devices"]

    /// Loads a file as the daemon does: the file, then its lines against simulated chips.
    static func problems(_ path: String) -> [String] {
        do {
            let configuration = try ConfigurationLoader.load(file: path)
            var chips: [String: any GPIOChip] = [:]
            var locations: [String: GPIOChipLocation] = [:]
            for chip in configuration.chips {
                let (opened, location) = try chip.open(simulate: true)
                chips[chip.id] = opened
                locations[chip.id] = location
            }
            try ConfigurationLoader.validateLines(configuration, chips: chips, locations: locations, file: path)
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test(arguments: cases)
    func brokenFileIsRejectedWithEveryProblem(name: String) throws {
        let expected = try String(contentsOf: Self.corpus.appendingPathComponent(name + ".expected"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(!expected.isEmpty)
        #expect(Self.problems(Self.corpus.appendingPathComponent(name + ".json").path) == expected)
    }

    @Test func sampleDevicesJSONIsValid() throws {
        let sample = RepositoryFiles.samplePath
        #expect(Self.problems(sample) == [])
        let configuration = try ConfigurationLoader.load(file: sample)
        #expect(configuration.devices.map(\.id) == ["porch", "fan", "garage", "status-led", "kitchen"])
        #expect(configuration.control("fan")?.autoOff == .seconds(600))
        #expect(configuration.device("garage")?.pulse == .milliseconds(500))
        #expect(configuration.control("garage-door")?.requiresAuthentication == true)
        #expect(configuration.control("light")?.devices == ["porch", "kitchen"])
        #expect(configuration.actionButtons.first?.holdTime == .milliseconds(700))
    }

    @Test func hugeFileIsRefusedUnread() throws {
        let path = NSTemporaryDirectory() + "switchboard-huge-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: UInt8(ascii: " "), count: 2 << 20).write(to: URL(fileURLWithPath: path))
        #expect(Self.problems(path) == ["the file is 2097152 bytes; the largest devices.json read is 1048576 bytes"])
    }

    @Test func deepNestingIsRejectedNotACrash() throws {
        // 200,000 nested arrays: a recursive reader without a depth limit would overflow its stack.
        let deep = Data(String(repeating: "[", count: 200_000).utf8) + Data(String(repeating: "]", count: 200_000).utf8)
        #expect {
            try ConfigurationLoader.load(data: deep)
        } throws: { error in
            let problems = (error as? ConfigurationError)?.problems.map(\.description) ?? []
            return problems == ["is not valid JSON: line 1, column 513: expected at most 512 levels of nesting"]
        }
        let nestedObject = Data(("{\"node\": " + String(repeating: "{\"a\": ", count: 100_000) + "1" + String(repeating: "}", count: 100_001)).utf8)
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(data: nestedObject) }
    }

    @Test func syntaxErrorsSayWhereAndWhatWasExpected() {
        let cases: [(String, String)] = [
            ("{\n  \"node\": \"x\",\n  \"chips\": [ }\n", "line 3, column 14: expected a value (an object, array, string, number, true, false or null)"),
            ("{\n  \"chips\": [ { \"id\": \"main\" \"chip\": \"header\" } ]\n}", "line 2, column 29: expected \",\" or \"}\" after a member"),
            ("{ \"node\": \"gar\u{00E4}ge\" \"x\": 1 }", "line 1, column 20: expected \",\" or \"}\" after a member"),
            ("{ \"node\": \"x\"", "line 1, column 14: expected \",\" or \"}\" after a member"),
            ("{ \"node\": tru }", "line 1, column 11: expected true"),
            ("{ \"node\": \"a\tb\" }", "line 1, column 13: expected no control character inside a string (write \\n or \\t)"),
            ("{ \"n\": 1. }", "line 1, column 10: expected a digit after the decimal point"),
            ("{} x", "line 1, column 4: expected the end of the file after the top-level value"),
        ]
        for (text, message) in cases {
            #expect(throws: ConfigurationError(file: "devices.json", problems: [ConfigurationProblem("", "is not valid JSON: " + message)])) {
                try ConfigurationLoader.load(data: Data(text.utf8))
            }
        }
    }

    @Test func holdTimeSaysWhatIsAllowed() {
        let file = #"{ "node": "x", "actionButtons": [ { "id": "b", "placement": "p", "holdTime": "0ms", "gpio": { "chip": "main", "line": 5 } } ] }"#
        var problems: [String] = []
        do {
            _ = try ConfigurationLoader.load(data: Data(file.utf8))
        } catch let error as ConfigurationError {
            problems = error.problems.map(\.description)
        } catch {}
        #expect(problems.first == "actionButtons[0].holdTime: 0ms is outside what is allowed: from 20ms to 30s", "\(problems)")
    }

    @Test func missingFileSaysSo() {
        #expect(Self.problems("/nonexistent/devices.json") == ["does not exist; give the path of a readable devices.json"])
    }

    @Test func durationsReadAsWritten() {
        #expect(DurationText.parse("500ms") == .milliseconds(500))
        #expect(DurationText.parse("1m30s") == .seconds(90))
        #expect(DurationText.parse("2h") == .seconds(7200))
        #expect(DurationText.parse("soon") == nil)
        #expect(DurationText.parse("") == nil)
        #expect(DurationText.format(.seconds(90)) == "1m30s")
        #expect(DurationText.countdown(.milliseconds(581_200)) == "9:42")
        #expect(DurationText.countdown(.seconds(581)) == "9:41")
    }
}

