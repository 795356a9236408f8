import ControlKit
import Foundation

// A control that takes push reloads, for the daemon's push tests: run by a control extension
// (faulty-extension) and embedded in a daemon (push-daemon).

/// A control whose state another system keeps in the file `$SWITCHBOARD_TEST_PUSHED` ("on" or
/// not): the daemon learns it changed only by a push to the control's token. Its push handler
/// writes the tokens it is told to the file beside it, one per line.
let pushedStatePath = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_PUSHED"] ?? "/nonexistent"

struct PushedState: ControlValueProvider {
    let previewValue = false
    func currentValue() async throws -> Bool {
        (try? String(contentsOfFile: pushedStatePath, encoding: .utf8))?.hasPrefix("on") == true
    }
}

struct PushedTokens: ControlPushHandler {
    func pushTokensDidChange(controls: [ControlInfo]) {
        let tokens = controls.compactMap { $0.pushInfo.map { String(decoding: $0.token, as: UTF8.self) } }
        try? tokens.map { $0 + "\n" }.joined().write(toFile: pushedStatePath + ".tokens", atomically: true, encoding: .utf8)
    }
}

public struct PushedToggle: ControlWidget {
    public init() {}

    public var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "test.pushed", provider: PushedState()) { isOn in
            ControlWidgetToggle("Pushed", isOn: isOn, action: SetPushed()) { isOn in
                Label(isOn ? "Running" : "Off", systemImage: "drop")
            }
        }
        .pushHandler(PushedTokens.self)
    }
}

/// Sets the state in the file, as the other system would.
struct SetPushed: SetValueIntent {
    static let title: LocalizedStringResource = "Pushed"
    @Parameter(title: "On") var value: Bool
    func perform() async throws -> some IntentResult {
        try (value ? "on" : "off").write(toFile: pushedStatePath, atomically: true, encoding: .utf8)
        return .result()
    }
}

/// The pushed toggle alone, for a daemon that embeds it.
public struct PushedBundle: WidgetBundle {
    public init() {}
    public var body: some Widget { PushedToggle() }
}
