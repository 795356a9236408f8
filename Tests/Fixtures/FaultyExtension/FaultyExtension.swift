import ControlKit
import PushedControl
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// A control extension for the daemon's extension tests: one well-behaved toggle on the porch
// relay, and buttons that misbehave in each way an extension can when pressed.

extension Relay {
    static let porch = Relay("porch")
    static let garage = Relay("garage")
}

struct SetPorch: SetValueIntent {
    static let title: LocalizedStringResource = "Porch"
    @Parameter(title: "On") var value: Bool
    func perform() async throws -> some IntentResult {
        try await Relay.porch.set(value)
        return .result()
    }
}

struct PorchProvider: ControlValueProvider {
    let previewValue = false
    func currentValue() async throws -> Bool { try await Relay.porch.isOn() }
}

struct PorchToggle: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "\(kindPrefix).porch", provider: PorchProvider()) { isOn in
            ControlWidgetToggle("Porch", isOn: isOn, action: SetPorch()) { isOn in
                Image(systemName: isOn ? "lightbulb.fill" : "lightbulb")
            }
        }
        .displayName("Porch")
    }
}

/// The first part of every kind: `test`, or `second` for a second copy run beside the first
/// (`--second`), so that two extensions list different kinds.
let kindPrefix = CommandLine.arguments.contains("--second") ? "second" : "test"

/// Counts presses of the bump button; the counter toggle shows whether the count is odd.
let bumps = Mutex(0)

struct Bump: AppIntent {
    static let title: LocalizedStringResource = "Bump"
    static let authenticationPolicy: IntentAuthenticationPolicy = .requiresAuthentication
    func perform() async throws -> some IntentResult & ProvidesDialog {
        let count = bumps.withLock { count in
            count += 1
            return count
        }
        // Only the counter's controls show it: they reload because the extension asks.
        ControlCenter.shared.reloadControls(ofKind: "\(kindPrefix).counter")
        return .result(dialog: "Bumped to \(count)")
    }
}

struct BumpButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "\(kindPrefix).bump") {
            ControlWidgetButton(action: Bump()) { Label("Bump", systemImage: "plus") }
        }
    }
}

struct OddCount: ControlValueProvider {
    let previewValue = false
    func currentValue() async throws -> Bool { bumps.withLock { $0 } % 2 == 1 }
}

struct SetNothing: SetValueIntent {
    static let title: LocalizedStringResource = "Counter"
    @Parameter(title: "Odd") var value: Bool
    func perform() async throws -> some IntentResult { .result() }
}

struct CounterToggle: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "\(kindPrefix).counter", provider: OddCount()) { isOdd in
            ControlWidgetToggle("Counter", isOn: isOdd, action: SetNothing()) { _ in Image(systemName: "number") }
        }
    }
}

/// What a misbehaving button does when pressed.
enum Misdeed: String, AppEnum {
    case crash, hang, slow, garbage, flood, replyFlood, deviceFlood, forbidden
    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Misdeed"
    static let caseDisplayRepresentations: [Misdeed: DisplayRepresentation] = [
        .crash: "Crash", .hang: "Hang", .slow: "Slow", .garbage: "Garbage", .flood: "Flood", .replyFlood: "Reply Flood", .deviceFlood: "Device Flood", .forbidden: "Forbidden",
    ]
}

struct Misbehave: AppIntent {
    static let title: LocalizedStringResource = "Misbehave"
    let misdeed: Misdeed
    init() { misdeed = .crash }
    init(_ misdeed: Misdeed) { self.misdeed = misdeed }

    func perform() async throws -> some IntentResult {
        switch misdeed {
        case .crash:
            exit(3)
        case .hang:
            // Stops answering anything: the whole process stops.
            raise(SIGSTOP)
        case .slow:
            try await Task.sleep(for: .seconds(30))
        case .garbage:
            for _ in 0..<60 { emit("this is not the line protocol") }
        case .flood:
            for _ in 0..<20_000 { emit(#"{"event":"noise"}"#) }
        case .replyFlood:
            // Well-formed replies to calls the daemon never made.
            for call in 5_000_000..<5_020_000 { emit(#"{"ok":true,"call":\#(call)}"#) }
        case .deviceFlood:
            // Device calls it never waits for, each taking the bell's whole pulse: far more than a
            // daemon carries out at once.
            for call in 1_000_000..<1_001_000 { emit(#"{"device":"pulse","id":"bell","call":\#(call)}"#) }
        case .forbidden:
            try await Relay.garage.set(true)
        }
        return .result()
    }
}

/// Writes a line to standard output, past the line protocol.
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// A button that misbehaves in one way when pressed.
protocol MisbehavingButton: ControlWidget {
    static var misdeed: Misdeed { get }
}

extension MisbehavingButton {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "\(kindPrefix).\(Self.misdeed.rawValue)") {
            ControlWidgetButton(action: Misbehave(Self.misdeed)) {
                Label(Self.misdeed.rawValue.capitalized, systemImage: "exclamationmark.triangle")
            }
        }
    }
}

struct CrashButton: MisbehavingButton { static let misdeed = Misdeed.crash }
struct HangButton: MisbehavingButton { static let misdeed = Misdeed.hang }
struct SlowButton: MisbehavingButton { static let misdeed = Misdeed.slow }
struct GarbageButton: MisbehavingButton { static let misdeed = Misdeed.garbage }
struct FloodButton: MisbehavingButton { static let misdeed = Misdeed.flood }
struct ReplyFloodButton: MisbehavingButton { static let misdeed = Misdeed.replyFlood }
struct DeviceFloodButton: MisbehavingButton { static let misdeed = Misdeed.deviceFlood }
struct ForbiddenButton: MisbehavingButton { static let misdeed = Misdeed.forbidden }

@main
struct FaultyExtension: WidgetBundle {
    var body: some Widget {
        PorchToggle()
        BumpButton()
        CounterToggle()
        // Its kind is fixed ("test.pushed"): a second copy leaves it out.
        if kindPrefix == "test" {
            PushedToggle()
        }
        CrashButton()
        HangButton()
        SlowButton()
        GarbageButton()
        FloodButton()
        ReplyFloodButton()
        DeviceFloodButton()
        ForbiddenButton()
    }
}
