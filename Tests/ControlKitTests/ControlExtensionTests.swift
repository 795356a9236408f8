import ControlKit
import Foundation
import SwitchboardTesting
import Testing

/// The example bundle's `@main` executable serves the line protocol on its standard streams.
@Suite(.timeLimit(.minutes(1))) struct ControlExtensionTests {
    /// Runs the extension with the given input lines and returns its output lines.
    private func run(_ arguments: [String] = [], input lines: [String]) async throws -> [String] {
        let result = await ChildProcess.run(BuiltProducts.path(of: "home-controls"), arguments, input: lines.map { $0 + "\n" }.joined())
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func aSingleControlAsMainRunsAsABundleOfThatControl() async throws {
        let gallery = await ChildProcess.run(BuiltProducts.path(of: "single-control"), ["--gallery"])
        #expect(gallery.status == 0, "\(gallery.stderr)")
        let reply = try JSONDecoder().decode(ControlReply.self, from: Data(gallery.stdout.utf8))
        #expect(reply.gallery?.map(\.kind) == ["com.example.attic-fan"])
        #expect(reply.gallery?.map(\.displayName) == ["Attic Fan Control"], "the bundle's name is the control type's")
        let placed = await ChildProcess.run(BuiltProducts.path(of: "single-control"), [],
            input: #"{"op":"place","kind":"com.example.attic-fan","id":"fan","call":1}"# + "\n")
        #expect(placed.status == 0)
        let answer = try JSONDecoder().decode(ControlReply.self, from: Data(try #require(placed.stdout.split(separator: "\n").first { $0.contains(#""call":1"#) }).utf8))
        #expect(answer.presentation?.valueText == "Off")
        #expect(answer.presentation?.actionHint == "Hold to Turn On Attic Fan")
    }

    @Test func galleryFlagPrintsTheBundleInOrder() async throws {
        let lines = try await run(["--gallery"], input: [])
        let reply = try JSONDecoder().decode(ControlReply.self, from: Data(try #require(lines.first).utf8))
        #expect(reply.gallery?.map(\.kind) == ["com.switchboard.example.Light", "com.switchboard.example.GarageDoor", "com.switchboard.example.Sprinkler"])
        #expect(reply.gallery?.map(\.displayName) == ["Light", "Garage Door", "Sprinkler"])
    }

    @Test(.timeLimit(.minutes(1))) func aCommandWithoutACallNumberMayWaitForItsDeviceAnswers() async throws {
        let home = InMemoryDevices([DeviceDescription(id: "porch", name: "Porch Light", kind: .relay)])
        let extensionHarness = try ExtensionHarness(BuiltProducts.path(of: "home-controls"), devices: home)
        // Placing the light reads the porch relay: its answer comes on the same input the
        // unnumbered command came on, so the extension must read on while it waits.
        let placed = try await extensionHarness.send(#"{"op":"place","kind":"com.switchboard.example.Light","id":"porch","configuration":{"light":"porch"}}"#, numbered: false)
        #expect(placed.call == nil)
        #expect(placed.presentation?.valueText == "Off")
        let performed = try await extensionHarness.send(#"{"op":"perform","id":"porch","request":"on"}"#, numbered: false)
        #expect(performed.presentation?.valueText == "On")
        #expect(home.value("porch") == true)
        #expect(await extensionHarness.finish() == 0)
    }

    @Test func placesAndPerformsOverStandardInputOnTheDaemonsDevices() async throws {
        let home = InMemoryDevices([
            DeviceDescription(id: "porch", name: "Porch Light", kind: .relay),
            DeviceDescription(id: "garage", name: "Garage Door", kind: .pulse),
            DeviceDescription(id: "sprinkler", name: "Sprinkler", kind: .relay),
        ])
        let extensionHarness = try ExtensionHarness(BuiltProducts.path(of: "home-controls"), devices: home)
        let placed = try await extensionHarness.send(#"{"op":"place","kind":"com.switchboard.example.Light","id":"porch","configuration":{"light":"porch"}}"#)
        #expect(placed.presentation?.valueText == "Off")
        let performed = try await extensionHarness.send(#"{"op":"perform","id":"porch","request":"on"}"#)
        #expect(performed.presentation?.valueText == "On")
        #expect(performed.presentation?.actionHint == "Hold to Turn Off Porch Light")
        #expect(home.value("porch") == true)
        #expect(try await extensionHarness.send(#"{"op":"lock"}"#).locked == true)
        #expect(try await extensionHarness.send(#"{"op":"place","kind":"com.switchboard.example.GarageDoor","id":"garage"}"#).ok)
        let refused = try await extensionHarness.send(#"{"op":"perform","id":"garage","request":"press"}"#)
        #expect(refused.error?.code == "authenticationRequired")
        #expect(home.presses(of: "garage") == 0)
        let pressed = try await extensionHarness.send(#"{"op":"perform","id":"garage","request":"press","authenticated":true}"#)
        #expect(pressed.ok && pressed.dialog == "Garage door moving")
        #expect(home.presses(of: "garage") == 1)
        #expect(try await extensionHarness.send("not json").error?.code == "badCommand")
        #expect(await extensionHarness.finish() == 0)
        #expect(extensionHarness.events.contains { $0.contains(#""event":"locked""#) })
        // The light was chosen among the daemon's devices, read and set for its kind.
        let light = "com.switchboard.example.Light"
        #expect(extensionHarness.deviceRequests.contains { $0.device == .devices })
        #expect(extensionHarness.deviceRequests.contains { $0.device == .value && $0.id == "porch" && $0.kind == light })
        #expect(extensionHarness.deviceRequests.contains { $0.device == .set && $0.id == "porch" && $0.value == true && $0.kind == light })
        #expect(home.calls.contains(.pulse("garage", kind: "com.switchboard.example.GarageDoor")))
    }

    @Test func aDeviceTheDaemonRefusesFailsThePerform() async throws {
        let home = InMemoryDevices([DeviceDescription(id: "garage", name: "Garage Door", kind: .relay)])
        let extensionHarness = try ExtensionHarness(BuiltProducts.path(of: "home-controls"), devices: home)
        #expect(try await extensionHarness.send(#"{"op":"place","kind":"com.switchboard.example.GarageDoor","id":"garage"}"#).ok)
        let failed = try await extensionHarness.send(#"{"op":"perform","id":"garage","request":"press","authenticated":true}"#)
        #expect(failed.error?.code == "performFailed")
        #expect(failed.error?.message.hasSuffix(#"Garage Door ("garage") is a relay: use Relay("…").set(_:) or isOn()"#) == true, "\(String(describing: failed.error))")
        #expect(await extensionHarness.finish() == 0)
    }
}
