import ControlKit
import Foundation
import SwitchboardTesting
import Testing

// Controls written as Apple's WidgetKit documentation writes them, with only the import changed.

/// Counts the times an intent ran, for the checks that it did or did not.
@MainActor enum TrunkLog {
    static var opened = 0
}

struct OpenTrunkIntent: AppIntent {
    static let title: LocalizedStringResource = "Open Trunk"
    func perform() async throws -> some IntentResult {
        await MainActor.run { TrunkLog.opened += 1 }
        return .result()
    }
}

/// `init(action:label:actionLabel:)`, as in its documentation's example.
struct TrunkButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.trunk") {
            ControlWidgetButton(action: OpenTrunkIntent()) {
                Label("Open Trunk", systemImage: "car.side.rear.open.crop")
            } actionLabel: { isActive in
                if isActive {
                    Text("Opening…")
                }
            }
        }
    }
}

/// `init(_:action:actionLabel:)` with a string literal (a `LocalizedStringKey`), and statements
/// before the configuration in `body` (`ControlWidgetConfigurationBuilder`).
struct TitledTrunkButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        let kind = "com.example.titled-trunk"
        StaticControlConfiguration(kind: kind) {
            ControlWidgetButton("Open Trunk", action: OpenTrunkIntent()) { isActive in
                Image(systemName: "car.side.rear.open.crop")
                if isActive {
                    Text("Opening...")
                }
            }
        }
    }
}

/// `init(_:action:actionLabel:)` with a `String` (an entity's name) and with a resource.
struct NamedButtons: ControlWidget {
    static let name = "Boot Lid"
    static let resource: LocalizedStringResource = "Tailgate"
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.named") {
            if TrunkLog.opened >= 0 {
                ControlWidgetButton(Self.name, action: OpenTrunkIntent()) { _ in EmptyView() }
            } else {
                ControlWidgetButton(Self.resource, action: OpenTrunkIntent()) { _ in EmptyView() }
            }
        }
    }
}

struct TailgateButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.tailgate") {
            ControlWidgetButton(NamedButtons.resource, action: OpenTrunkIntent()) { _ in EmptyView() }
        }
    }
}

@MainActor enum FanState {
    static var isOn = false
    static var sets: [Bool] = []
}

struct SetFanRunning: SetValueIntent {
    static let title: LocalizedStringResource = "Fan"
    @Parameter(title: "Running") var value: Bool
    func perform() async throws -> some IntentResult {
        let value = self.value
        await MainActor.run {
            FanState.isOn = value
            FanState.sets.append(value)
        }
        return .result()
    }
}

/// `init(isOn:action:label:)`: the default value labels.
struct DefaultLabelFan: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.fan") {
            ControlWidgetToggle(isOn: FanState.isOn, action: SetFanRunning()) {
                Label("Attic Fan", systemImage: "fan")
            }
        }
    }
}

/// A toggle whose display name is not its title, as the Action button's documentation shows.
struct HallLightswitch: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.lightswitch") {
            ControlWidgetToggle(isOn: FanState.isOn, action: SetFanRunning()) {
                Label("Hall Switch", systemImage: "lightswitch.on")
            }
        }
        .displayName("Lightswitch")
    }
}

/// A button whose display name is not its label's title.
struct PerformActionButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.perform-action") {
            ControlWidgetButton(action: OpenTrunkIntent()) {
                Label("Go", systemImage: "checkmark.circle")
            }
        }
        .displayName("Perform Action")
    }
}

/// `init(_:isOn:action:valueLabel:)` with a literal title, disabled by `disabled(_:)` while the
/// fan is on.
struct LockableFan: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "com.example.lockable-fan") {
            ControlWidgetToggle("Cellar Fan", isOn: FanState.isOn, action: SetFanRunning()) { isOn in
                Label(isOn ? "Running" : "Stopped", image: "cellar.fan")
            }
            .disabled(FanState.isOn)
        }
    }
}

struct ChooseRoom: ControlConfigurationIntent {
    static let title: LocalizedStringResource = "Choose Room"
    @Parameter(title: "Room", default: "Hall") var room: String
}

struct ChooseFloor: ControlConfigurationIntent {
    static let title: LocalizedStringResource = "Choose Floor"
    @Parameter(title: "Floor", default: 0) var floor: Int
}

/// `AppIntentControlConfiguration(kind:intent:content:)`: no provider, the content gets the intent.
struct RoomLight: ControlWidget {
    var body: some ControlWidgetConfiguration {
        AppIntentControlConfiguration(kind: "com.example.room-light", intent: ChooseRoom.self) { configuration in
            ControlWidgetButton(action: OpenTrunkIntent()) {
                Label("\(configuration.room) Light", systemImage: "lightbulb")
            }
        }
    }
}

/// What ``RoomTokens`` was told, call by call: "token=room" per control.
let roomTokensTold = Probe<[[String]]>([])

struct RoomTokens: ControlPushHandler {
    func pushTokensDidChange(controls: [ControlInfo]) {
        let told = controls.map { control in
            let token = control.pushInfo.map { String(decoding: $0.token, as: UTF8.self) } ?? "none"
            return token + "=" + (control.configurationIntent(of: ChooseRoom.self)?.room ?? "none")
        }
        roomTokensTold.update { $0.append(told) }
    }
}

/// A configurable control that opts into push reloads.
struct PushedRoomLight: ControlWidget {
    var body: some ControlWidgetConfiguration {
        AppIntentControlConfiguration(kind: "com.example.pushed-room", intent: ChooseRoom.self) { configuration in
            ControlWidgetButton(action: OpenTrunkIntent()) {
                Label("\(configuration.room) Light", systemImage: "lightbulb")
            }
        }
        .pushHandler(RoomTokens.self)
    }
}

@Suite(.serialized, .timeLimit(.minutes(1)))
@MainActor
struct AppleControlsAPITests {
    init() {
        TrunkLog.opened = 0
        FanState.isOn = false
        FanState.sets = []
    }

    private func placed<C: ControlWidget>(_ control: C.Type, id: String = "placed", configuration: [String: String] = [:]) async throws -> ControlCenter {
        let center = ControlCenter()
        try await center.register([ControlDefinition(control)])
        _ = try await center.place(kind: ControlDefinition(control).kind, in: .controlCenter, size: .medium, configuration: configuration, id: id)
        return center
    }

    @Test func buttonActionLabelIsTheStatusWhileAndAfterItPerforms() async throws {
        let center = try await placed(TrunkButton.self)
        let before = try await center.presentation(of: "placed")
        #expect(before.title == "Open Trunk")
        #expect(before.symbol == "car.side.rear.open.crop")
        #expect(before.status == nil)
        #expect(before.actionHint == "Hold for Open Trunk")
        let outcome = try await center.perform("placed", .press)
        #expect(TrunkLog.opened == 1)
        #expect(outcome.presentation.status == "Opening…")
    }

    @Test func buttonTitledByAStringLiteralWithStatementsBeforeItsConfiguration() async throws {
        let center = try await placed(TitledTrunkButton.self)
        let before = try await center.presentation(of: "placed")
        #expect(before.kind == "com.example.titled-trunk")
        #expect(before.title == "Open Trunk")
        #expect(before.symbol == nil, "the image is in the action label, drawn only while it performs")
        #expect(try await center.perform("placed", .press).presentation.status == "Opening...")
    }

    @Test func buttonTitledByAStringOrAResourceHasNoStatusWithAnEmptyActionLabel() async throws {
        let named = try await placed(NamedButtons.self)
        #expect(try await named.presentation(of: "placed").title == "Boot Lid")
        #expect(try await named.perform("placed", .press).presentation.status == nil)
        let tailgate = try await placed(TailgateButton.self)
        #expect(try await tailgate.presentation(of: "placed").title == "Tailgate")
    }

    @Test func toggleWithoutAValueLabelSaysOnAndOff() async throws {
        let center = try await placed(DefaultLabelFan.self)
        let off = try await center.presentation(of: "placed")
        #expect(off.title == "Attic Fan")
        #expect(off.valueText == "Off")
        #expect(off.actionHint == "Hold to Turn On Attic Fan")
        let on = try await center.perform("placed", .toggle).presentation
        #expect(FanState.sets == [true])
        #expect(on.value == true)
        #expect(on.valueText == "On")
        #expect(on.actionHint == "Hold to Turn Off Attic Fan")
    }

    @Test func theDefaultHintNamesAControlByItsDisplayName() async throws {
        let toggle = try await placed(HallLightswitch.self)
        let off = try await toggle.presentation(of: "placed")
        #expect(off.title == "Hall Switch")
        #expect(off.actionHint == "Hold to Turn On Lightswitch")
        let button = try await placed(PerformActionButton.self)
        #expect(try await button.presentation(of: "placed").actionHint == "Hold for Perform Action")
        // Without a display name of its own, the title names it.
        #expect(try await placed(DefaultLabelFan.self).presentation(of: "placed").actionHint == "Hold to Turn On Attic Fan")
    }

    @Test func disabledTemplateShowsButRefusesToPerform() async throws {
        let center = try await placed(LockableFan.self)
        let enabled = try await center.presentation(of: "placed")
        #expect(enabled.title == "Cellar Fan")
        #expect(enabled.valueText == "Stopped")
        #expect(enabled.symbol == "cellar.fan", "an asset image's name is kept as the symbol")
        #expect(!enabled.disabled)
        let running = try await center.perform("placed", .setValue(true)).presentation
        #expect(running.disabled, "disabled(FanState.isOn) while running")
        #expect(running.valueText == "Running")
        await #expect {
            try await center.perform("placed", .setValue(false))
        } throws: { error in
            (error as? ControlError)?.code == .disabled
                && (error as? ControlError)?.description == "control \"placed\" is disabled: its template is disabled for now (disabled(true)); nothing was done"
        }
        #expect(FanState.sets == [true], "the refused request ran nothing")
        #expect(try await center.presentation(of: "placed").value == true)
    }

    @Test func configurationWithoutAProviderHandsTheContentTheConfiguredIntent() async throws {
        let center = try await placed(RoomLight.self, configuration: ["room": "Porch"])
        #expect(try await center.presentation(of: "placed").title == "Porch Light")
        let reconfigured = try await center.configure("placed", configuration: ["room": "Attic"])
        #expect(reconfigured.title == "Attic Light")
        #expect(try await center.parameters(ofKind: "com.example.room-light").map(\.name) == ["room"])
    }

    @Test func pushHandlerIsToldItsControlsTokensAsTheyArePlacedConfiguredAndRemoved() async throws {
        roomTokensTold.update { $0 = [] }
        let center = ControlCenter()
        try await center.register([ControlDefinition(PushedRoomLight.self), ControlDefinition(RoomLight.self)])
        try await center.place(kind: "com.example.pushed-room", in: .controlCenter, configuration: ["room": "Porch"], id: "porch")
        try await center.place(kind: "com.example.room-light", in: .controlCenter, configuration: ["room": "Shed"], id: "plain")
        try await center.place(kind: "com.example.pushed-room", in: .controlCenter, configuration: ["room": "Attic"], id: "attic")
        try await center.configure("porch", configuration: ["room": "Hall"])
        try await center.remove("attic")
        #expect(roomTokensTold.value == [["porch=Porch"], ["porch=Porch", "attic=Attic"], ["porch=Hall", "attic=Attic"], ["porch=Hall"]],
                "every change, with all its controls; never the control without a handler")

        let current = try await center.currentControls()
        #expect(current.map(\.placement.id) == ["porch", "plain"])
        #expect(current.map { $0.pushInfo.map { String(decoding: $0.token, as: UTF8.self) } } == ["porch", nil])
        #expect(current.map { $0.configurationIntent(of: ChooseRoom.self)?.room } == ["Hall", "Shed"])
        #expect(current[0].configurationIntent(of: ChooseFloor.self) == nil, "an intent of another type is nil")
        #expect(await center.reload(placement: "porch"))
        #expect(await !center.reload(placement: "attic"), "removed: nothing to reload")
    }

    @Test func presentationsFromAnEarlierNodeWithoutDisabledStillDecode() throws {
        let earlier = #"{"id":"porch","kind":"porch","template":"toggle","space":"controlCenter","size":"medium","displayName":"Porch","title":"Porch","value":true,"valueText":"On","symbol":null,"tint":null,"status":null,"actionHint":null,"stale":false,"needsConfiguration":false,"redacted":false}"#
        let decoded = try JSONDecoder().decode(ControlPresentation.self, from: Data(earlier.utf8))
        #expect(decoded.value == true && !decoded.disabled)
    }
}
