import Foundation
import SwitchboardCore
import Testing
@testable import SwitchboardConfiguration

/// devices.json's `homekit` block: off when absent, defaults, and every wrong value a typed
/// problem with its path (never a crash).
struct HomeKitSettingsTests {
    func load(_ homekit: String?) throws -> SwitchboardConfiguration {
        let block = homekit.map { #", "homekit": \#($0)"# } ?? ""
        return try ConfigurationLoader.load(data: Data(#"{"node": "garage-pi", "name": "Garage"\#(block)}"#.utf8))
    }

    func problems(_ homekit: String) -> [String] {
        do {
            _ = try load(homekit)
            return []
        } catch let error as ConfigurationError {
            return error.problems.map(\.description)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func absentOrNullIsOff() throws {
        #expect(try load(nil).homekit == nil)
        #expect(try load("null").homekit == nil)
    }

    @Test func defaultsAndGivenValues() throws {
        #expect(try load("{}").homekit == HomeKitSettings(name: nil, port: 51826, setupCode: nil))
        #expect(try load(#"{"name": "Garage Bridge", "port": 51900, "setupCode": "031-45-154"}"#).homekit
            == HomeKitSettings(name: "Garage Bridge", port: 51900, setupCode: "031-45-154"))
    }

    @Test func forbiddenAndMalformedSetupCodesAreProblemsWithTheirPath() {
        for code in ["111-11-111", "123-45-678", "876-54-321", "000-00-000"] {
            let found = problems(#"{"setupCode": "\#(code)"}"#)
            #expect(found.count == 1 && found[0].hasPrefix("homekit.setupCode: \"\(code)\": HAP forbids this code"), "\(code): \(found)")
        }
        for code in ["12345678", "031-45-15", "03a-45-154", ""] {
            let found = problems(#"{"setupCode": "\#(code)"}"#)
            #expect(found.count == 1 && found[0].hasPrefix("homekit.setupCode: \"\(code)\": expected eight digits"), "\(code): \(found)")
        }
    }

    @Test func otherWrongValuesAreProblemsWithTheirPath() {
        #expect(problems(#"{"port": 0}"#).first?.hasPrefix("homekit.port") == true)
        #expect(problems(#"{"port": "51826"}"#).first?.hasPrefix("homekit.port") == true)
        #expect(problems(#"{"name": " "}"#).first?.hasPrefix("homekit.name: is empty") == true)
        #expect(problems(#"{"pin": "031-45-154"}"#).first?.hasPrefix("homekit.pin") == true)
        #expect(problems(#""on""#).first?.hasPrefix("homekit") == true)
    }

    @Test func aChangedBlockIsAReloadChange() throws {
        let before = try load(nil), after = try load("{}")
        #expect(before.changes(to: after) == ["HomeKit bridge switched on"])
        #expect(after.changes(to: try load(#"{"port": 51900}"#)) == ["HomeKit settings changed (the bridge was started again)"])
        #expect(after.changes(to: after).isEmpty)
    }
}
