#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardCore
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardConfiguration

let usage = """
usage: switchboard [--socket PATH] <command> [arguments]
       switchboard --broker mqtt[s]://HOST[:PORT] [--username U --password-file F] [--ca-file F]
                   [--prefix P] center [--json] [--follow] | on|off|toggle|press <node>/<id>

  gallery                                 the controls gallery
  center [--json]                         Control Center, drawn in the terminal
  on | off | toggle <id>                  switch a placed toggle
  press <id>                              press a placed button
  add <kind> [--device D] [--size S] [--space S] [--id ID]
                                          place a control (space: controlCenter, lockScreen, actionButton)
  configure <id> --device D               choose which device a configurable control drives
  configure <id> --where C [--where C]    ... or the one its entity query finds (see find)
  find <kind> [--where C]... [--any] [--sort P[:desc]]... [--limit N] [--parameter NAME]
                                          a configurable control's choices, found by their
                                          properties: C is "Room = Kitchen", "Watts < 10",
                                          "Name contains porch", "Watts between 5 and 10"
  remove <id>                             remove a placed control
  reload [--kind K]                       reload all controls, or one kind
  apply                                   re-read the daemon's devices.json (as SIGHUP does) and say what changed
  lock | unlock                           lock or unlock Switchboard
  status                                  node, lock state, outputs and controls (and why any is stale)
  health                                  exit 0 when all is well, else 1 with one line per problem
  button <id> --hold <duration>           press a simulated Action button or push-button (switchboardd --simulate)
  button <id> --double                    press a simulated push-button twice (its double press)
  input <id> active|inactive              open or close a simulated contact, trip a sensor (--simulate)
  schedule pause|resume <id>              stop a schedule from firing (across restarts), or let it fire again
  automation pause|resume <id>            stop an automation from running (across restarts), or let it run again
  check <file> [--simulate]               validate a devices.json without a daemon
  homekit                                 the HomeKit bridge: its setup code, paired or not, the controllers
  homekit reset                           unpair every controller (the bridge keeps its identity)

  --socket PATH   the daemon's socket (default /run/switchboard/switchboard.sock)
  --broker URL    every node on this MQTT broker instead (the fleet): its Control Center,
                  grouped by node, from what the nodes keep retained there; commands to
                  node/id through the topic contract, waiting for the node's result
  --version       print the version and the libraries it was built with
  -h, --help      show this help

Exit status: 0 done, 1 refused or failed, 2 usage error, 3 daemon unreachable, 4 invalid devices.json.
"""

enum Exit: Int32 {
    case done = 0, refused = 1, usage = 2, unreachable = 3, invalid = 4
}

func fail(_ message: String, _ code: Exit) -> Never {
    writeLine("switchboard: " + message, to: STDERR_FILENO)
    exit(code.rawValue)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var socketPath = ProcessInfo.processInfo.environment["SWITCHBOARD_SOCKET"] ?? "/run/switchboard/switchboard.sock"
if let index = arguments.firstIndex(of: "--socket") {
    guard index + 1 < arguments.count else { fail("--socket needs a path\n\n\(usage)", .usage) }
    socketPath = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
if arguments.isEmpty || arguments.contains("-h") || arguments.contains("--help") {
    print(usage)
    exit(arguments.isEmpty ? Exit.usage.rawValue : 0)
}
if arguments == ["--version"] {
    print(Switchboard.versionLine(program: "switchboard"))
    exit(0)
}

/// Takes `--flag value` out of the arguments.
@MainActor
func option(_ flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag) else { return nil }
    guard index + 1 < arguments.count else { fail("\(flag) needs a value\n\n\(usage)", .usage) }
    let value = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
    return value
}

/// Takes every `--flag value` out of the arguments, in order.
@MainActor
func options(_ flag: String) -> [String] {
    var values: [String] = []
    while let value = option(flag) { values.append(value) }
    return values
}

/// The find the `--where`, `--any`, `--sort`, `--limit` and `--parameter` options describe.
@MainActor
func findOptions(limit fixedLimit: Int? = nil) -> EntityFind {
    var conditions: [EntityFind.Condition] = []
    for text in options("--where") {
        do {
            conditions.append(try EntityFind.Condition(parsing: text))
        } catch {
            fail("--where \(error.description)", .usage)
        }
    }
    var limit = fixedLimit
    if fixedLimit == nil, let text = option("--limit") {
        guard let number = Int(text), number > 0 else { fail("--limit takes a number of at least 1, not \(text)", .usage) }
        limit = number
    }
    return EntityFind(
        parameter: option("--parameter"), conditions: conditions, matchesAny: flag("--any"),
        sort: options("--sort").map(EntityFind.SortKey.init(parsing:)), limit: limit
    )
}

@MainActor
func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}

/// The broker, for the fleet commands (`--broker`); nil for one daemon's socket.
@MainActor
func fleetBroker() -> FleetBroker? {
    guard let url = option("--broker") else { return nil }
    var broker: FleetBroker
    do {
        broker = try FleetBroker(url: url)
    } catch {
        fail(error.description, .usage)
    }
    broker.username = option("--username")
    if let file = option("--password-file") {
        guard let password = PasswordFile.read(file) else { fail("--password-file \(file) cannot be read", .usage) }
        broker.password = password
    }
    broker.caFile = option("--ca-file")
    if broker.tls && broker.caFile == nil { fail("\(url) speaks TLS: give the CA that signed the broker's certificate with --ca-file", .usage) }
    if let prefix = option("--prefix") { broker.prefix = prefix }
    return broker
}

let broker = fleetBroker()
if arguments.isEmpty { fail("a command is needed\n\n\(usage)", .usage) }
let command = arguments.removeFirst()
let client = SocketClient(path: socketPath)
let color = SystemCall.isTerminal(STDOUT_FILENO) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil

@MainActor
func request(_ command: ControlCommand) -> SocketReply {
    do {
        let reply = try client.send(command)
        if !reply.ok { fail(reply.error?.message ?? "refused", .refused) }
        return reply
    } catch {
        fail(String(describing: error), .unreachable)
    }
}

@MainActor
func argument(_ what: String) -> String {
    guard let value = arguments.first, !value.hasPrefix("--") else { fail("\(command) needs \(what)\n\n\(usage)", .usage) }
    arguments.removeFirst()
    return value
}

/// The HomeKit bridge in one line: serving on port N, K controllers paired; or why it is off.
func homekitLine(_ report: HomeKitBridge.Report) -> String {
    guard report.serving else { return "off: \(report.problem ?? "no homekit block")" }
    let count = report.controllers?.count ?? 0
    return "serving on port \(report.port ?? 0), " + (count == 0 ? "not paired" : "\(count) controller\(count == 1 ? "" : "s") paired")
}

@MainActor
func describe(_ p: ControlPresentation) -> String {
    var parts = [p.id ?? p.kind]
    if let title = p.title { parts.append(title) }
    if p.redacted { parts.append("(redacted)") } else if let value = p.valueText { parts.append(value) }
    if let status = p.status { parts.append("— \(status)") }
    if p.stale { parts.append("(stale)") }
    if p.needsConfiguration { parts.append("(needs configuring)") }
    if p.disabled { parts.append("(disabled)") }
    return parts.joined(separator: " ")
}

@MainActor
func finishArguments() {
    if let extra = arguments.first { fail("unexpected \(extra)\n\n\(usage)", .usage) }
}

if let broker { await runFleet(broker) }

switch command {
case "gallery":
    finishArguments()
    let reply = request(ControlCommand(.gallery))
    for (index, item) in (reply.gallery ?? []).enumerated() {
        let p = item.presentation
        let kind = p.template?.rawValue ?? "control"
        let preview = p.needsConfiguration ? "needs configuring" : [p.valueText, p.actionHint].compactMap { $0 }.joined(separator: " · ")
        print("\(index + 1). \(item.displayName)  [\(item.kind), \(kind)]  \(ControlCenterRenderer.glyph(for: p.symbol)) \(preview)")
        if let description = item.description { print("   \(description)") }
        for parameter in item.parameters {
            print("   \(parameter.title): \(parameter.options.map { "\($0.id) (\($0.title))" }.joined(separator: ", "))")
        }
    }
case "center":
    let json = flag("--json")
    finishArguments()
    let reply = request(ControlCommand(.center))
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(reply.presentations ?? []), as: UTF8.self))
    } else {
        print(ControlCenterRenderer(color: color).render(reply.presentations ?? [], locked: reply.locked ?? false))
    }
case "on", "off", "toggle", "press":
    let id = argument("a placed control's id")
    finishArguments()
    let reply = request(ControlCommand(.perform, id: id, request: command))
    if let presentation = reply.presentation { print(describe(presentation)) }
    if let dialog = reply.dialog { print(dialog) }
case "add":
    // Options first, wherever they are written; then what is left is the kind.
    let device = option("--device"), size = option("--size"), space = option("--space"), id = option("--id")
    let kind = argument("a control kind")
    finishArguments()
    guard space == nil || ControlSpace(rawValue: space!) != nil else {
        fail("--space \(space!) is not one of \(ControlSpace.allCases.map(\.rawValue).joined(separator: ", "))", .usage)
    }
    guard size == nil || ControlSize(rawValue: size!) != nil else {
        fail("--size \(size!) is not one of \(ControlSize.allCases.map(\.rawValue).joined(separator: ", "))", .usage)
    }
    var configuration: [String: String]?
    if let device {
        let parameters = request(ControlCommand(.parameters, kind: kind)).parameters ?? []
        guard parameters.count == 1, let name = parameters.first?.name else {
            fail("\(kind) is not configured with a device", .refused)
        }
        configuration = [name: device]
    }
    let reply = request(ControlCommand(.place, id: id, kind: kind, space: space.flatMap(ControlSpace.init(rawValue:)) ?? .controlCenter,
                                       size: size.flatMap(ControlSize.init(rawValue:)), configuration: configuration))
    if let presentation = reply.presentation { print("placed " + describe(presentation)) }
case "configure":
    let device = option("--device")
    // Two at most: one is the choice, two means the conditions do not pick one.
    let find = findOptions(limit: 2)
    guard (device == nil) != find.conditions.isEmpty else { fail("configure needs --device D or --where C\n\n\(usage)", .usage) }
    let id = argument("a placed control's id")
    finishArguments()
    let placed = request(ControlCommand(.center)).presentations?.first { $0.id == id }
    guard let placed else { fail("no placed control \"\(id)\"; see switchboard center", .refused) }
    let configuration: [String: String]
    if let device {
        let parameters = request(ControlCommand(.parameters, kind: placed.kind)).parameters ?? []
        guard parameters.count == 1, let name = parameters.first?.name else { fail("\(id) is not configured with a device", .refused) }
        configuration = [name: device]
    } else {
        guard let found = request(ControlCommand(.find, kind: placed.kind, find: find)).parameters?.first else { fail("nothing found", .refused) }
        guard found.options.count == 1, let choice = found.options.first else {
            let which = found.options.isEmpty ? "no \(found.type) matches" : "more than one \(found.type) matches (\(found.options.map(\.title).joined(separator: ", ")), …)"
            fail("\(id): \(which); see switchboard find \(placed.kind)", .refused)
        }
        configuration = [found.name: choice.id]
    }
    let reply = request(ControlCommand(.configure, id: id, configuration: configuration))
    if let presentation = reply.presentation { print(describe(presentation)) }
case "find":
    let find = findOptions()
    let kind = argument("a control kind")
    finishArguments()
    guard let found = request(ControlCommand(.find, kind: kind, find: find)).parameters?.first else { fail("nothing found", .refused) }
    if found.options.isEmpty { fail("no \(found.type) matches", .refused) }
    for option in found.options {
        print([option.id, option.title, option.subtitle.map { "— \($0)" }].compactMap { $0 }.joined(separator: "  "))
    }
case "remove":
    let id = argument("a placed control's id")
    finishArguments()
    _ = request(ControlCommand(.remove, id: id))
    print("removed \(id)")
case "reload":
    let kind = option("--kind")
    finishArguments()
    let reply = request(ControlCommand(.reload, kind: kind))
    for presentation in reply.presentations ?? [] { print(describe(presentation)) }
case "apply":
    finishArguments()
    do {
        let reply = try client.send(line: #"{"op":"apply"}"#)
        guard reply.ok else {
            writeLine("switchboard: " + (reply.error?.message ?? "not applied"), to: STDERR_FILENO)
            exit(reply.error?.code == "kept" ? Exit.invalid.rawValue : Exit.refused.rawValue)
        }
        let changes = reply.changes ?? []
        print(changes.isEmpty ? "applied: nothing changed" : "applied:")
        for change in changes { print("  \(change)") }
    } catch {
        fail(String(describing: error), .unreachable)
    }
case "lock", "unlock":
    finishArguments()
    let reply = request(ControlCommand(command == "lock" ? .lock : .unlock))
    print(reply.locked == true ? "locked" : "unlocked")
case "status":
    finishArguments()
    let reply = request(ControlCommand(.status))
    print("node \(reply.node ?? "?"), \(reply.locked == true ? "locked" : "unlocked")")
    for warning in reply.warnings ?? [] { print("warning: \(warning)") }
    for device in reply.devices ?? [] { print("output \(device.id): \(device.value ? "on" : "off")") }
    for input in reply.inputs ?? [] { print("input \(input.id): \(input.value ? "active" : "inactive")") }
    for button in reply.buttons ?? [] { print("button \(button)") }
    for schedule in reply.schedules ?? [] { print("schedule \(schedule)") }
    for automation in reply.automations ?? [] { print("automation \(automation)") }
    for cover in reply.covers ?? [] { print("cover \(cover)") }
    for device in reply.otherDevices ?? [] { print("device \(device)") }
    if let mqtt = reply.mqtt { print("mqtt: \(mqtt)") }
    if let homekit = reply.homekit { print("homekit: " + homekitLine(homekit)) }
    for isolation in reply.extensions ?? [] { print("extension \(isolation)") }
    for presentation in reply.presentations ?? [] {
        let reason = presentation.id.flatMap { reply.staleReasons?[$0] }.map { ": \($0)" } ?? ""
        print("control " + describe(presentation) + reason)
    }
case "health":
    finishArguments()
    let reply = request(ControlCommand(.status))
    // What a monitoring system needs: one line per thing that is wrong, and the exit status.
    var problems = reply.warnings ?? []
    if reply.mqtt == "disconnected" { problems.append("not connected to the MQTT broker") }
    for (id, reason) in (reply.staleReasons ?? [:]).sorted(by: { $0.key < $1.key }) { problems.append("control \(id) is stale: \(reason)") }
    for device in reply.otherDevices ?? [] {
        if let reason = device.stale { problems.append("device \(device.id) is stale: \(reason)") }
    }
    if problems.isEmpty {
        print("healthy: node \(reply.node ?? "?")")
    } else {
        for problem in problems { print(problem) }
        exit(Exit.refused.rawValue)
    }
case "homekit":
    let reset = arguments.first == "reset"
    if reset { arguments.removeFirst() }
    finishArguments()
    do {
        let reply = try client.send(line: reset ? #"{"op":"homekitReset"}"# : #"{"op":"homekit"}"#)
        if !reply.ok { fail(reply.error?.message ?? "refused", .refused) }
        guard let homekit = reply.homekit else { fail("switchboardd said nothing of HomeKit", .refused) }
        if reset {
            print("unpaired: every controller's pairing was removed (the bridge keeps its identity); add it again in the Home app")
        } else {
            if let code = homekit.setupCode { print("setup code: \(code)\(homekit.setupCodeSource.map { " (\($0))" } ?? "")") }
            if let uri = homekit.setupURI {
                print("setup URI: \(uri)")
                // The code the Home app scans ("Add Accessory").
                if let qr = try? QRCode(uri) { print(qr.terminalText(), terminator: "") }
            }
            print(homekitLine(homekit))
            if let number = homekit.configurationNumber { print("configuration number \(number)") }
            for controller in homekit.controllers ?? [] { print("controller \(controller)") }
        }
    } catch {
        fail(String(describing: error), .unreachable)
    }
case "button":
    let double = flag("--double")
    guard let hold = option("--hold") ?? (double ? "100ms" : nil) else { fail("button needs --hold <duration>, such as --hold 1s, or --double\n\n\(usage)", .usage) }
    let id = argument("a button's id")
    finishArguments()
    do {
        let escaped = id.replacing("\"", with: "")
        let reply = try client.send(line: #"{"op":"button","id":"\#(escaped)","hold":"\#(hold.replacing("\"", with: ""))","double":\#(double)}"#)
        if !reply.ok { fail(reply.error?.message ?? "refused", .refused) }
        let announcements = reply.announcements ?? []
        for announcement in announcements { print(announcement) }
        // A press that was refused or failed is no press done; cancelled (released early) is.
        if announcements.contains(where: { $0.hasPrefix("refused:") || $0.hasPrefix("failed:") }) { exit(Exit.refused.rawValue) }
    } catch {
        fail(String(describing: error), .unreachable)
    }
case "input":
    let id = argument("an input device's id")
    let state = argument("active or inactive")
    guard state == "active" || state == "inactive" else { fail("input \(id) \(state): say active or inactive\n\n\(usage)", .usage) }
    finishArguments()
    do {
        let reply = try client.send(line: #"{"op":"input","id":"\#(id.replacing("\"", with: ""))","active":\#(state == "active")}"#)
        if !reply.ok { fail(reply.error?.message ?? "refused", .refused) }
    } catch {
        fail(String(describing: error), .unreachable)
    }
case "schedule", "automation":
    let verb = argument("pause or resume")
    guard verb == "pause" || verb == "resume" else { fail("\(command) \(verb): say pause or resume\n\n\(usage)", .usage) }
    let id = argument(command == "schedule" ? "a schedule's id" : "an automation's id")
    finishArguments()
    do {
        let reply = try client.send(line: #"{"op":"\#(command)","id":"\#(id.replacing("\"", with: ""))","pause":\#(verb == "pause")}"#)
        if !reply.ok { fail(reply.error?.message ?? "refused", .refused) }
        for line in (command == "schedule" ? reply.schedules : reply.automations) ?? [] { print("\(command) \(line)") }
    } catch {
        fail(String(describing: error), .unreachable)
    }
case "check":
    let simulate = flag("--simulate")
    let file = argument("a devices.json path")
    finishArguments()
    do {
        // Controls of a Swift bundle compiled into the daemon, or of its control extensions, are
        // not in the file: the running daemon's gallery names them. Without a daemon to ask, a
        // file that lists extensions may place kinds it does not declare (they are said below).
        let running = (try? client.send(ControlCommand(.gallery)))?.gallery?.map(\.kind)
        let lenient = try ConfigurationLoader.load(file: file, swiftKinds: running ?? [], allowsUnknownKinds: true)
        let configuration: SwitchboardConfiguration
        var unverified: [String] = []
        if running == nil, !lenient.extensions.isEmpty {
            configuration = lenient
            unverified = lenient.placements.filter { lenient.control($0.control) == nil }.map(\.control)
        } else {
            do {
                configuration = try ConfigurationLoader.load(file: file, swiftKinds: running ?? [])
            } catch var error as ConfigurationError where running == nil {
                // Say where a Swift control's kind could come from.
                error.problems = error.problems.map { problem in
                    guard problem.message.contains("is not a control") else { return problem }
                    return ConfigurationProblem(problem.path, problem.message + "; a control compiled into the daemon is known once it runs: start it, then check again (check asks it)")
                }
                throw error
            }
        }
        // The daemon's own chip opener: the chips are found as switchboardd finds them.
        var chips = OpenChips()
        var warnings = 0
        var problems = chips.open(configuration, simulate: simulate) { path, location in
            print("\(path): \(location)")
            if let warning = location.warning {
                warnings += 1
                writeLine("switchboard: warning: \(path): \(warning)", to: STDERR_FILENO)
            }
        }.map { ConfigurationProblem($0.path, "\($0.message) (add --simulate to check against simulated chips)") }
        // The daemon reads these at start and stops if it cannot: say so now. The secrets are
        // checked as the daemon checks them (owner and mode, SecretFile), the others for reading.
        let asServiceUser = "the daemon must be able to use it: as the service user, run this check with sudo -u switchboard"
        for (path, secret) in [("mqtt.passwordFile", configuration.mqtt?.passwordFile), ("mqtt.tls.keyFile", configuration.mqtt?.tls?.keyFile)] {
            guard let secret else { continue }
            do throws(SecretFileError) {
                try SecretFile.check(secret)
            } catch {
                problems.append(ConfigurationProblem(path, "\(error) (\(asServiceUser))"))
            }
        }
        for (path, readable) in [("mqtt.tls.caFile", configuration.mqtt?.tls?.caFile), ("mqtt.tls.certificateFile", configuration.mqtt?.tls?.certificateFile)] {
            guard let readable else { continue }
            do {
                try SystemCall.checkReadable(readable)
            } catch {
                let user = SystemCall.userName(SystemCall.effectiveUser) ?? "uid \(SystemCall.effectiveUser)"
                problems.append(ConfigurationProblem(path, "\(readable) cannot be read by \(user) (\(error.message)); \(asServiceUser)"))
            }
        }
        if !problems.isEmpty { throw ConfigurationError(file: file, problems: problems) }
        try ConfigurationLoader.validateLines(configuration, chips: chips.chips, locations: chips.locations, file: file)
        for kind in Set(unverified).sorted() {
            warnings += 1
            let names = configuration.extensions.map(\.id).joined(separator: ", ")
            writeLine("switchboard: warning: \"\(kind)\" is placed but not declared in the file: it must be a control of an extension (\(names)); switchboardd checks that when they list their controls (run check while it runs to have it asked)", to: STDERR_FILENO)
        }
        print("\(file): valid: node \(configuration.node), \(configuration.devices.count) devices, \(configuration.controls.count) controls, \(configuration.placements.count) placements\(simulate ? " (simulated chips)" : "")\(warnings > 0 ? "; \(warnings) warning\(warnings == 1 ? "" : "s") above" : "")")
    } catch {
        fail(String(describing: error), .invalid)
    }
default:
    fail("unknown command \(command)\n\n\(usage)", .usage)
}
