import Foundation
import SwitchboardCore
import Testing

/// The aid/iid map: ids given once per placement and never moved or reused, through a save and
/// a load of the HomeKit state file; a torn or foreign file is refused, not replaced.
struct HomeKitAccessoryMapTests {
    @Test func idsAreGivenOnceAndNeverReused() {
        var map = HomeKitAccessoryMap()
        #expect(map.aid(for: "porch") == 2)
        #expect(map.aid(for: "fan") == 3)
        #expect(map.aid(for: "porch") == 2)
        #expect(map.iid("info", of: "porch") == 1)
        #expect(map.iid("lightbulb", of: "porch") == 2)
        #expect(map.iid("info", of: "porch") == 1)
        #expect(map.iid("info", of: "fan") == 1)
        // A placement whose service changes keeps its aid; the new service gets new iids.
        #expect(map.iid("switch", of: "porch") == 3)
        // A new placement after another was removed never gets the removed one's aid.
        #expect(map.aid(for: "kitchen") == 4)
    }

    @Test func theStateSurvivesASaveAndALoad() throws {
        let folder = NSTemporaryDirectory() + "homekit-state-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try HomeKitStateFile(folder: folder)
        #expect(try file.load() == nil)
        var state = try HomeKitState.new()
        #expect(state.pairingIdentifier.split(separator: ":").count == 6)
        _ = state.accessories.aid(for: "porch")
        _ = state.accessories.iid("switch.On", of: "porch")
        state.configurationNumber = 7
        try file.save(state)
        #expect(try file.load() == state)
        let mode = try FileManager.default.attributesOfItem(atPath: folder + "/homekit.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aTornFileIsRefusedWithWhatToDo() throws {
        let folder = NSTemporaryDirectory() + "homekit-state-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try HomeKitStateFile(folder: folder)
        try file.save(try HomeKitState.new())
        let whole = try Data(contentsOf: URL(fileURLWithPath: folder + "/homekit.json"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: folder + "/homekit.json"))
        #expect {
            _ = try file.load()
        } throws: { error in
            String(describing: error).contains("is not a Switchboard HomeKit state") && String(describing: error).contains("move it aside")
        }
    }

    @Test func randomSetupCodesAreAllowedCodes() {
        for _ in 0..<200 {
            let code = HomeKitState.randomSetupCode()
            #expect(code.count == 10 && code.filter { $0 == "-" }.count == 2)
            #expect(!["111-11-111", "123-45-678", "876-54-321"].contains(code))
        }
    }
}
