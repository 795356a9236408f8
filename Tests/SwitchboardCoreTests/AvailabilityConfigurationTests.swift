import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardConfiguration

/// devices.json's `availabilityTopic`, `payloadAvailable`, `payloadNotAvailable` and `staleAfter`
/// of an mqtt device: defaulted from its system's topics, checked like every other key.
@Suite struct AvailabilityConfigurationTests {
    func file(_ mqtt: String) -> Data {
        Data(#"""
        { "node": "plugs", "mqtt": { "port": 1883 }, "devices": [ { "id": "plug", "name": "Desk Plug", "type": "mqtt", "mqtt": { \#(mqtt) } } ] }
        """#.utf8)
    }

    func problems(_ mqtt: String) -> [String] {
        do {
            _ = try ConfigurationLoader.load(data: file(mqtt))
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func aTasmotaPlugGetsItsLastWillWithoutNewKeys() throws {
        let configuration = try ConfigurationLoader.load(data: file(#""stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER""#))
        let mqtt = try #require(configuration.device("plug")?.mqtt)
        #expect(mqtt.availability == MQTTAvailability(topic: "tele/plug1/LWT", payloadAvailable: "Online", payloadNotAvailable: "Offline"))
        #expect(mqtt.staleAfter == nil)
    }

    @Test func aDeviceDeclaredInSwiftGetsTheSameDefaults() throws {
        let declared = DeviceDeclaration.mqtt("socket", name: "Socket", stateTopic: "stat/socket/POWER", commandTopic: "cmnd/socket/POWER", staleAfter: .seconds(60))
        let configuration = try ConfigurationLoader.load(data: file(#""stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER""#), swiftDevices: [declared])
        let mqtt = try #require(configuration.device("socket")?.mqtt)
        #expect(mqtt.availability == MQTTAvailability(topic: "tele/socket/LWT", payloadAvailable: "Online", payloadNotAvailable: "Offline"))
        #expect(mqtt.staleAfter == .seconds(60))
    }

    @Test func givenKeysWinAndAnEmptyTopicTurnsAvailabilityOff() throws {
        let given = try ConfigurationLoader.load(data: file(#"""
        "stateTopic": "home/lamp", "commandTopic": "home/lamp/cmd", "availabilityTopic": "home/lamp/alive",
        "payloadAvailable": "1", "payloadNotAvailable": "0", "staleAfter": "10m"
        """#))
        #expect(given.device("plug")?.mqtt?.availability == MQTTAvailability(topic: "home/lamp/alive", payloadAvailable: "1", payloadNotAvailable: "0"))
        #expect(given.device("plug")?.mqtt?.staleAfter == .seconds(600))
        let off = try ConfigurationLoader.load(data: file(#""stateTopic": "stat/plug1/POWER", "commandTopic": "cmnd/plug1/POWER", "availabilityTopic": """#))
        #expect(off.device("plug")?.mqtt?.availability == nil)
    }

    @Test func badKeysAreProblemsNamingThePath() {
        #expect(problems(#""stateTopic": "a", "commandTopic": "b", "availabilityTopic": "tele/+/LWT""#)
            == [#"devices[0].mqtt.availabilityTopic: "tele/+/LWT" must not contain wildcards: it is one device's topic"#])
        #expect(problems(#""stateTopic": "a", "commandTopic": "b", "payloadAvailable": "up""#)
            == [#"devices[0].mqtt.payloadAvailable: needs "availabilityTopic": the topics are of no system whose availability topic is known"#])
        #expect(problems(#""stateTopic": "a", "commandTopic": "b", "availabilityTopic": "a/lwt", "payloadAvailable": "x", "payloadNotAvailable": "x""#)
            == [#"devices[0].mqtt.payloadNotAvailable: is the same as payloadAvailable ("x"): give two different payloads"#])
        #expect(problems(#""stateTopic": "a", "commandTopic": "b", "staleAfter": "soon""#)
            == [#"devices[0].mqtt.staleAfter: "soon" is not a duration: write it like "500ms", "20s", "10m" or "1h""#])
        #expect(problems(#""stateTopic": "a", "commandTopic": "b", "availabilityTopic": 5"#)
            == ["devices[0].mqtt.availabilityTopic: expected a string, found a number"])
    }

    /// devices.schema.json accepts what the loader accepts of these keys and refuses a wildcard
    /// topic, an empty payload and a bad duration, as the loader does.
    @Test func schemaAndLoaderAgree() async throws {
        let good = #""stateTopic": "home/lamp", "commandTopic": "home/lamp/cmd", "availabilityTopic": "home/lamp/alive", "payloadAvailable": "1", "payloadNotAvailable": "0", "staleAfter": "10m""#
        let bad = [
            #""stateTopic": "a", "commandTopic": "b", "availabilityTopic": "tele/+/LWT""#,
            #""stateTopic": "a", "commandTopic": "b", "availabilityTopic": "a/lwt", "payloadAvailable": """#,
            #""stateTopic": "a", "commandTopic": "b", "staleAfter": "soon""#,
        ]
        #expect(problems(good) == [])
        for mqtt in bad { #expect(problems(mqtt).count == 1, "\(mqtt)") }
        let script = """
        import json, sys, jsonschema
        validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1] + '/devices.schema.json')))
        for document in sys.argv[2:]:
            print(len(list(validator.iter_errors(json.loads(document)))))
        """
        let documents = ([good] + bad).map { String(decoding: file($0), as: UTF8.self) }
        let result = await DaemonHarness.run("/usr/bin/env", ["python3", "-c", script, RepositoryFiles.root] + documents)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "0\n1\n1\n1\n")
    }
}
