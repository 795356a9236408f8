import ControlKit
import Foundation
import SwitchboardTesting
import Testing

/// The example bundle's `@main` executable serves the line protocol on its standard streams.
@Suite struct ControlExtensionTests {
    /// Runs the extension with the given input lines and returns its output lines.
    private func run(_ arguments: [String] = [], input lines: [String]) throws -> [String] {
        let result = ChildProcess.run(BuiltProducts.path(of: "home-controls"), arguments, input: lines.map { $0 + "\n" }.joined())
        #expect(result.status == 0)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func galleryFlagPrintsTheBundleInOrder() throws {
        let lines = try run(["--gallery"], input: [])
        let reply = try JSONDecoder().decode(ControlReply.self, from: Data(try #require(lines.first).utf8))
        #expect(reply.gallery?.map(\.kind) == ["com.switchboard.example.Light", "com.switchboard.example.GarageDoor", "com.switchboard.example.Sprinkler"])
        #expect(reply.gallery?.map(\.displayName) == ["Light", "Garage Door", "Sprinkler"])
    }

    @Test func placesAndPerformsOverStandardInput() throws {
        let lines = try run(input: [
            #"{"op":"place","kind":"com.switchboard.example.Light","id":"porch","configuration":{"light":"porch"}}"#,
            #"{"op":"perform","id":"porch","request":"on"}"#,
            #"{"op":"lock"}"#,
            #"{"op":"place","kind":"com.switchboard.example.GarageDoor","id":"garage"}"#,
            #"{"op":"perform","id":"garage","request":"press"}"#,
            #"{"op":"perform","id":"garage","request":"press","authenticated":true}"#,
            "not json",
        ])
        let replies = try lines.filter { $0.hasPrefix(#"{"#) && !$0.contains(#""event":"#) }
            .map { try JSONDecoder().decode(ControlReply.self, from: Data($0.utf8)) }
        #expect(replies.count == 7)
        #expect(replies[0].presentation?.valueText == "Off")
        #expect(replies[1].presentation?.valueText == "On")
        #expect(replies[1].presentation?.actionHint == "Hold to Turn Off Porch Light")
        #expect(replies[2].locked == true)
        #expect(replies[4].error?.code == "authenticationRequired")
        #expect(replies[5].ok && replies[5].dialog == "Garage door moving")
        #expect(replies[6].error?.code == "badCommand")
        #expect(lines.contains { $0.contains(#""event":"locked""#) })
    }
}
