import ControlKit
#if canImport(Glibc)
import Glibc
#endif

/// What a hostile button does when pressed.
enum Attack: String, AppEnum {
    case exit, orphan, bomb, sneak, sneakPorch
    static let typeDisplayRepresentation: TypeDisplayRepresentation = "Attack"
    static let caseDisplayRepresentations: [Attack: DisplayRepresentation] = [
        .exit: "Exit", .orphan: "Orphan", .bomb: "Bomb", .sneak: "Sneak", .sneakPorch: "Sneak Porch",
    ]
}

/// The most children the fork bomb makes, whatever its limits: it must not harm the machine
/// that tests it.
let bombCap = 600
/// Children the bomb ends again once it reached its limit.
let bombHeadroom = 16

struct Attempt: AppIntent {
    static let title: LocalizedStringResource = "Attack"
    let attack: Attack
    init() { attack = .exit }
    init(_ attack: Attack) { self.attack = attack }

    func perform() async throws -> some IntentResult & ProvidesDialog {
        switch attack {
        case .exit:
            Glibc.exit(0)
        case .orphan:
            // The child keeps the extension's standard output and asks the daemon to switch the
            // porch on and off, long after the extension itself is gone. Its lines are made
            // before fork: the child only writes and sleeps.
            let lines = [true, false].map { Array(#"{"device":"set","id":"porch","value":\#($0),"call":900001}"#.utf8 + [10]) }
            let child = fork()
            if child == 0 {
                for round in 0..<300 {
                    _ = lines[round % 2].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
                    usleep(200_000)
                }
                _exit(0)
            }
            report("orphan \(child)")
            Glibc.exit(0)
        case .bomb:
            var children: [pid_t] = []
            var failure: Int32 = 0
            while children.count < bombCap {
                let child = fork()
                if child == 0 {
                    while true { pause() }
                }
                if child < 0 {
                    failure = errno
                    break
                }
                children.append(child)
            }
            // At its limit the extension could start no thread of its own either, and a runtime
            // that needs one then (a sanitized build's does) hangs until the daemon kills it as
            // hung, its group with it, before the test counts that group. The last few children
            // end, so that the extension lives on to be counted and stopped.
            for child in children.suffix(bombHeadroom) {
                kill(child, SIGKILL)
                waitpid(child, nil, 0)
            }
            report("bomb \(children.count) \(failure) \(children.count - min(children.count, bombHeadroom))")
            return .result(dialog: "forked \(children.count)")
        case .sneak:
            try await sneak(on: "garage")
            return .result(dialog: "sneaked")
        case .sneakPorch:
            try await sneak(on: "porch")
            return .result(dialog: "sneaked")
        }
    }

    /// Switches a device on, as if the extension had decided to.
    func sneak(on device: String) async throws {
        do {
            try await Relay(device).set(true)
            report("sneak \(device) done")
        } catch {
            report("sneak \(device) refused: \(error)")
            throw error
        }
    }
}

/// A button that attacks in one way when pressed.
protocol AttackButton: ControlWidget {
    static var attack: Attack { get }
}

extension AttackButton {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "hostile.\(Self.attack.rawValue)") {
            ControlWidgetButton(action: Attempt(Self.attack)) { Label(Self.attack.rawValue.capitalized, systemImage: "exclamationmark.shield") }
        }
    }
}

struct ExitButton: AttackButton { static let attack = Attack.exit }
struct OrphanButton: AttackButton { static let attack = Attack.orphan }
struct BombButton: AttackButton { static let attack = Attack.bomb }
struct SneakButton: AttackButton { static let attack = Attack.sneak }
struct SneakPorchButton: AttackButton { static let attack = Attack.sneakPorch }

/// The extension's own control on the porch, which requires authentication: the porch is guarded
/// by the lock once it has driven it.
struct GuardPorch: AppIntent {
    static let title: LocalizedStringResource = "Porch Off"
    static let authenticationPolicy: IntentAuthenticationPolicy = .requiresAuthentication
    func perform() async throws -> some IntentResult {
        try await Relay("porch").set(false)
        return .result()
    }
}

struct GuardedPorchButton: ControlWidget {
    var body: some ControlWidgetConfiguration {
        StaticControlConfiguration(kind: "hostile.guarded") {
            ControlWidgetButton(action: GuardPorch()) { Label("Porch Off", systemImage: "lock") }
        }
    }
}

struct HostileExtension: WidgetBundle {
    var body: some Widget {
        ExitButton()
        OrphanButton()
        BombButton()
        SneakButton()
        SneakPorchButton()
        GuardedPorchButton()
    }
}
