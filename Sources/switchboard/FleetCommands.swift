#if canImport(Glibc)
import Glibc
#endif
import ControlKitCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport
import SwitchboardCore

/// `switchboard --broker URL …`: the commands that talk to every node through the broker
/// instead of one daemon's socket (`center`, `on`, `off`, `toggle`, `press` with `node/id`).
@MainActor
func runFleet(_ broker: FleetBroker) async -> Never {
    do {
        switch command {
        case "center":
            let json = flag("--json")
            let follow = flag("--follow")
            finishArguments()
            let client = try FleetClient(broker)
            guard follow else {
                let nodes = try await client.nodes()
                guard json || !nodes.isEmpty else { fail("no Switchboard node on \(broker.host):\(broker.port) under \(broker.prefix)/", .refused) }
                print(json ? try FleetDrawing.json(nodes, pretty: true) : FleetDrawing.text(nodes, color: color))
                exit(0)
            }
            // Live: a JSON line per picture, or the picture redrawn (in place on a terminal).
            let clear = SystemCall.isTerminal(STDOUT_FILENO)
            let color = color
            try await client.follow { nodes in
                let drawing = json ? ((try? FleetDrawing.json(nodes, pretty: false)) ?? "[]") : (clear ? "\u{1B}[H\u{1B}[2J" : "") + FleetDrawing.text(nodes, color: color) + "\n"
                writeLine(drawing, to: STDOUT_FILENO)
            }
        case "on", "off", "toggle", "press":
            let target = argument("a control as node/id (shed-pi/porch)")
            finishArguments()
            let parts = target.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { fail("\(target) is not node/id, such as shed-pi/porch", .usage) }
            let (title, result) = try await FleetClient(broker).perform(command, node: parts[0], id: parts[1])
            let outcome = result["outcome"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? "unknown"
            let text = { (key: String) -> String? in if case .string(let value)? = result[key] { value } else { nil } }
            guard outcome == "performed" else {
                fail("\(target): \(outcome): \(text("error") ?? "the node gave no reason")", .refused)
            }
            print([target, title, text("valueText")].compactMap { $0 }.joined(separator: " "))
            if let dialog = text("dialog") { print(dialog) }
        default:
            fail("with --broker: center, on, off, toggle, press (node/id); \(command) talks to one daemon's socket\n\n\(usage)", .usage)
        }
    } catch let error as FleetError {
        writeLine("switchboard: " + error.description, to: STDERR_FILENO)
        exit(error.exit)
    } catch {
        fail(String(describing: error), .refused)
    }
    exit(0)
}

/// How the fleet's picture is printed.
enum FleetDrawing {
    /// Every node, by name, then its Control Center as `switchboard center` draws it.
    static func text(_ nodes: [FleetNode], color: Bool) -> String {
        let renderer = ControlCenterRenderer(color: color)
        return nodes.map { node in
            let status = switch node.online {
            case true?: "online"
            case false?: "offline (its controls as it last published them)"
            case nil: "no status"
            }
            let buttons = node.buttons.map { "\n" + $0.line }.joined()
            return "\(node.node) — \(status)\(node.locked == true ? ", locked" : "")\n" + renderer.render(node.controls, locked: node.locked ?? false) + buttons
        }.joined(separator: "\n\n")
    }

    static func json(_ nodes: [FleetNode], pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        return String(decoding: try encoder.encode(nodes), as: UTF8.self)
    }
}
