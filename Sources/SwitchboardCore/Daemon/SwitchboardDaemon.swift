#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ControlKitCore
import SwitchboardGPIO
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration
import SwitchboardExtensionHost

/// switchboardd's options.
public struct DaemonOptions: Sendable {
    public var configPath = "/etc/switchboard/devices.json"
    public var simulate = false
    public var stateDirectory = "/var/lib/switchboard"
    public var socketPath = "/run/switchboard/switchboard.sock"
    /// How long a socket connection may go without a complete request (while none is being
    /// answered) before it is closed, so that idle connections cannot use up a user's places.
    public var socketIdleTimeout = SocketSession.defaultIdleTimeout
    /// `switchboard-extension.socket`'s path: each control extension then runs as an instance of
    /// `switchboard-extension@.service` (``ExtensionHosting/systemd(socket:)``); nil: as a child process.
    public var extensionSocket: String?

    public init() {}
}

/// The daemon: loads devices.json (refusing to start on any problem), brings up a
/// ``NodeRuntime``, serves the local socket, and handles SIGHUP (reload, keeping the running
/// configuration if the new file is bad) and SIGTERM/SIGINT (stop cleanly).
public final class SwitchboardDaemon: Sendable {
    let options: DaemonOptions
    let log: Log
    let notifier = SystemdNotifier()
    private let current = Locked<NodeRuntime?>(nil)
    /// Each configuration that starts, in turn: the first, then one per successful reload.
    private let generations: AsyncStream<NodeRuntime>
    private let nextGeneration: AsyncStream<NodeRuntime>.Continuation
    /// Controls compiled into a Swift bundle, served beside devices.json's.
    private let swiftControls: [ControlDefinition]
    /// Devices declared in Swift, added to devices.json's at every load.
    private let swiftDevices: [DeviceDeclaration]
    /// The chips open now, by chip id, and where each was found.
    /// What went wrong that a user must know of, for `switchboard status`.
    let warnings = Locked<[String]>([])
    private let chips = Locked<OpenChips>(OpenChips())
    /// The control extensions devices.json lists.
    let extensions: ExtensionHosts
    /// Rung each time an extension has listed its controls.
    private let listings = Doorbell()
    /// The HomeKit bridge, once the state directory is open.
    let homekit = Locked<HomeKitBridge?>(nil)

    /// Who waits for a reload's outcome (`switchboard apply`).
    typealias ReloadCaller = CheckedContinuation<ReloadOutcome, Never>
    /// Reloads and the stop, taken one at a time by the serving loop: a storm of SIGHUPs and
    /// applies is at most one reload pending behind the one running.
    private let reloadRequests = Locked(ReloadRequests<ReloadCaller>())
    /// Rung after each request: the serving loop takes what is pending.
    private let doorbell = Doorbell()

    /// The daemon, for closures made before it exists.
    private struct Weak: Sendable { weak var daemon: SwitchboardDaemon? }

    public init(options: DaemonOptions, log: Log = Log(), swiftControls: [ControlDefinition] = [], devices: [DeviceDeclaration] = []) {
        self.swiftDevices = devices
        self.options = options
        self.log = log
        self.swiftControls = swiftControls
        (generations, nextGeneration) = AsyncStream<NodeRuntime>.makeStream()
        let me = Locked(Weak()), listings = self.listings
        extensions = ExtensionHosts { settings in
            ExtensionHost(
                settings: settings,
                devices: NodeDeviceService(caller: "extension \"\(settings.id)\"", allowed: Set(settings.devices), obeysLock: true) { me.withLock { $0.daemon }?.runtime },
                log: log,
                hosting: options.extensionSocket.map { .systemd(socket: $0) } ?? .process,
                reload: { kinds in
                    guard let center = me.withLock({ $0.daemon })?.runtime?.center else { return }
                    kinds.forEach { center.push(kind: $0) }
                },
                listed: { listings.ring() }
            )
        }
        me.withLock { $0.daemon = self }
    }

    /// A daemon that also serves a Swift bundle's controls: write a `main` that calls this with
    /// your `WidgetBundle` and devices.json can place its kinds; `devices` are declared in Swift
    /// beside devices.json's.
    @MainActor
    public convenience init<Bundle: WidgetBundle>(options: DaemonOptions, log: Log = Log(), bundle: Bundle.Type, devices: [DeviceDeclaration] = []) {
        self.init(options: options, log: log, swiftControls: Bundle().controlDefinitions, devices: devices)
    }

    /// Runs until SIGTERM or SIGINT; returns the process's exit status: 0 after such a stop, 1
    /// when the node could not start or a part of the daemon failed (the rest was then stopped).
    ///
    /// The daemon is a ``ServiceGroup``: the control extensions first (devices.json is read with
    /// their controls known), then the node, itself a group (``serveNode()``). A stop shuts them
    /// down the other way round, each once the one after it has returned.
    public func run() async -> Int32 {
        let daemon = ServiceGroup([
            ServiceGroup.Entry("control extensions", extensions),
            ServiceGroup.Entry("node") { try await self.serveNode() },
        ], report: { [log] line in log(.warning, line) })
        do {
            try await daemon.run()
            return 0
        } catch {
            var cause: any Error = error
            while let failure = cause as? ServiceGroupError { cause = failure.underlying }
            // A stop the daemon decided on was said in the log when it was decided.
            if !(cause is DaemonStop) { log(.error, "switchboardd stopping: \(error)") }
            return 1
        }
    }

    /// The daemon stops with a failure it has logged already: the node did not start, or neither
    /// the new nor the previous configuration could start.
    struct DaemonStop: Error {}

    /// Loads devices.json: first leniently, to start the control extensions it lists, then with
    /// their controls known.
    private func loadConfiguration() async throws -> SwitchboardConfiguration {
        let swiftKinds = swiftControls.map(\.kind)
        let preliminary = try ConfigurationLoader.load(file: options.configPath, swiftKinds: swiftKinds, allowsUnknownKinds: true, swiftDevices: swiftDevices)
        let allListed = await extensions.update(to: preliminary.extensions)
        return try ConfigurationLoader.load(
            file: options.configPath, swiftKinds: swiftKinds + extensions.all.flatMap(\.kinds), allowsUnknownKinds: !allListed, swiftDevices: swiftDevices
        )
    }

    /// The node, once its extensions can run: starts it, then serves it as a ``ServiceGroup`` of,
    /// in order, its configurations (``runConfigurations()``), the extensions' late listings, the
    /// socket, the systemd watchdog and the loop that takes signals and reloads
    /// (``serveRequests(_:stateFile:)``). SIGTERM or SIGINT ends that loop, and so the group, the
    /// last started first: no reload runs after the socket has closed, and the configuration,
    /// stopped last, saves its state once nothing can change it any more.
    /// - Throws: ``DaemonStop`` when the node could not start or could not go on.
    private func serveNode() async throws {
        // A client or a pipe that goes away while being written to is an error to handle
        // (EPIPE), never a signal that ends the daemon.
        signal(SIGPIPE, SIG_IGN)
        // Swift controls compiled in reach the board's devices through the configuration serving.
        DeviceCenter.shared.connect(NodeDeviceService(caller: "the Swift bundle", allowed: nil) { [weak self] in self?.runtime })
        let signals = UnixSignals([SIGTERM, SIGINT, SIGHUP])
        let stateFile: StateFile
        let runtime: NodeRuntime
        let listener: UnixSocketListener
        let lock: DaemonLock
        do {
            // Opened once and checked: owned by this user (or root), writable by no one else, no
            // link in place of a file; its files are reached through it only.
            let stateDirectory = try StateDirectory.open(options.stateDirectory)
            stateFile = StateFile(directory: stateDirectory)
            // Before anything else is touched: a second daemon on this state must not start.
            lock = try DaemonLock(stateDirectory: stateDirectory)
            homekit.withLock { $0 = HomeKitBridge(stateDirectory: stateDirectory, log: log) { [weak self] in self?.runtime } }
            try Self.makeDirectory(String(options.socketPath[..<(options.socketPath.lastIndex(of: "/") ?? options.socketPath.startIndex)]))
            let configuration = try await loadConfiguration()
            runtime = try await start(configuration, chips: try openChips(for: configuration), stateFile: stateFile)
            listener = try UnixSocketListener(path: options.socketPath) { [log] message in log(.warning, message) }
        } catch {
            log(.error, String(describing: error))
            log(.error, "switchboardd did not start; nothing was changed")
            throw DaemonStop()
        }
        setCurrent(runtime)
        let outputs = runtime.hub.outputValues().map { "\($0.id)=\($0.value ? "on" : "off")" }.joined(separator: " ")
        log(.info, "switchboardd ready: node \(runtime.configuration.node), \(runtime.configuration.controls.count) controls, \(await runtime.center.placements.count) placed, socket \(options.socketPath)\(options.simulate ? ", simulated GPIO" : ", GPIO through \(LibgpiodChip.libraryVersion)")\(outputs.isEmpty ? "" : "; outputs \(outputs)")")
        notifier.notify("READY=1\nSTATUS=Serving \(runtime.configuration.node)")

        var services = [
            ServiceGroup.Entry("configurations") { await self.runConfigurations() },
            ServiceGroup.Entry("extension listings") { await self.addListedControls() },
            ServiceGroup.Entry("HomeKit bridge") { await self.homekit.withLock { $0 }?.run() },
            ServiceGroup.Entry("socket") {
                await withGracefulShutdownHandler { await self.serve(listener) } onGracefulShutdown: { listener.stop() }
            },
        ]
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(ServiceGroup.Entry("watchdog", stop: .cancellation) {
                while (try? await Task.sleep(for: interval / 2)) != nil { self.notifier.notify("WATCHDOG=1") }
            })
        }
        services.append(ServiceGroup.Entry("requests") { try await self.serveRequests(signals, stateFile: stateFile) })
        defer {
            log(.info, "switchboardd stopped")
            withExtendedLifetime(lock) {}
        }
        try await ServiceGroup(services, report: { [log] line in log(.warning, line) }).run()
    }

    /// Runs each configuration in turn (``runGenerations()``) until the graceful shutdown; then
    /// saves the last one's state and releases its lines.
    private func runConfigurations() async {
        await withGracefulShutdownHandler {
            await runGenerations()
        } onGracefulShutdown: { [self] in
            nextGeneration.finish()
            current.withLock { $0 }?.stopServices()
        }
        if let runtime = current.withLock({ $0 }) {
            try? await runtime.persistRuntimeState()
            runtime.shutdown()
        }
    }

    /// An extension that listed its controls after the node started (or again after a restart):
    /// its controls join the serving configuration, and their placements are placed.
    private func addListedControls() async {
        await withGracefulShutdownHandler {
            for await _ in listings {
                guard let runtime = self.runtime else { continue }
                await runtime.addControls(extensionDefinitions(for: runtime.configuration))
            }
        } onGracefulShutdown: { [listings] in
            listings.finish()
        }
    }

    /// Takes signals and `switchboard apply` one at a time: two reloads never overlap, and a storm
    /// of them is one reload pending behind the running one. Returns on SIGTERM or SIGINT, or on
    /// the group's graceful shutdown, having told the callers still waiting that it stops.
    /// - Throws: ``DaemonStop`` when neither the new nor the previous configuration could start.
    private func serveRequests(_ signals: UnixSignals, stateFile: StateFile) async throws {
        var fatal = false
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await signal in signals {
                        if signal == SIGHUP {
                            _ = self.reloadRequests.withLock { $0.reload(answering: nil) }
                        } else {
                            let first = self.reloadRequests.withLock { requests -> Bool in
                                defer { requests.stop() }
                                return !requests.stopping
                            }
                            if first { self.log(.info, "switchboardd stopping (signal \(signal))") }
                        }
                        self.doorbell.ring()
                    }
                }
                serving: for await _ in doorbell {
                    while let step = reloadRequests.withLock({ $0.next() }) {
                        switch step {
                        case .stop(let callers):
                            notifier.notify("STOPPING=1")
                            for caller in callers { caller.resume(returning: .kept("switchboardd is stopping")) }
                            break serving
                        case .reload(let callers):
                            let outcome = await reload(stateFile: stateFile)
                            for caller in callers { caller.resume(returning: outcome) }
                            if case .fatal = outcome {
                                // Neither configuration runs: better a restart (systemd's
                                // Restart=on-failure) than a daemon that answers with nothing behind it.
                                log(.error, "switchboardd stopping: neither the new nor the previous configuration could start")
                                notifier.notify("STOPPING=1")
                                fatal = true
                                reloadRequests.withLock { $0.stop() }
                                if case .stop(let waiting) = reloadRequests.withLock({ $0.next() }) {
                                    for caller in waiting { caller.resume(returning: .kept("switchboardd is stopping")) }
                                }
                                break serving
                            }
                        }
                    }
                }
                doorbell.finish()
                group.cancelAll()
            }
        } onGracefulShutdown: { [self] in
            reloadRequests.withLock { $0.stop() }
            doorbell.ring()
        }
        if fatal { throw DaemonStop() }
    }

    /// Brings the node up on chips from ``openChips(for:)``.
    private func start(
        _ configuration: SwitchboardConfiguration, chips opened: OpenChips, stateFile: StateFile,
        handover: LineHandover = .none, remembering known: RemoteKnowledge = .none, mqttConnection: MQTTBridge.Handover? = nil
    ) async throws -> NodeRuntime {
        let (persisted, recovery) = stateFile.loadRecovering()
        if let recovery {
            log(.error, "state: \(recovery)")
            warnings.withLock { $0.append("state: \(recovery)") }
        }
        let runtime = try await NodeRuntime(
            configuration: configuration, chips: opened.chips, persisted: persisted, stateFile: stateFile,
            extraControls: swiftControls + extensionDefinitions(for: configuration), handover: handover, remembering: known, mqttConnection: mqttConnection, log: log,
            problems: { [warnings] in warnings.withLock { $0 } }
        )
        chips.withLock { $0 = opened }
        return runtime
    }

    /// The chips a configuration names, opened (or simulated), with every line checked against
    /// them; each newly opened chip is logged with why it is that chip (and a warning when it is
    /// probably not the one meant). Chips already open are reused; a chip id whose `chip` changed
    /// is refused, as its lines would be handed over on the old chip: that takes a restart.
    private func openChips(for configuration: SwitchboardConfiguration) throws -> OpenChips {
        var opened = chips.withLock { $0 }
        let problems = opened.open(configuration, simulate: options.simulate) { path, location in
            log(.info, "\(path): \(location)")
            if let warning = location.warning { log(.warning, "\(path): \(warning)") }
        }
        if !problems.isEmpty { throw ConfigurationError(file: options.configPath, problems: problems) }
        try ConfigurationLoader.validateLines(configuration, chips: opened.chips, locations: opened.locations, file: options.configPath)
        return opened
    }

    /// Runs each configuration's services in turn: a reload stops one, and the next begins once
    /// it has started (until then this waits; it never runs a stopped one again).
    private func runGenerations() async {
        var generation = 0
        for await runtime in generations {
            generation += 1
            log(.info, "configuration \(generation) serving")
            await runtime.runServices()
        }
    }

    /// The extensions' controls that a configuration can take: kinds of devices.json's and of
    /// compiled-in controls stay theirs; a clash is logged once.
    private func extensionDefinitions(for configuration: SwitchboardConfiguration) -> [ControlDefinition] {
        let before = Set(extensions.problems)
        let definitions = extensions.definitions(excluding: configuration.controls.map(\.kind) + swiftControls.map(\.kind))
        for problem in extensions.problems where !before.contains(problem) { log(.warning, problem) }
        return definitions
    }

    /// The configuration serving from now on.
    private func setCurrent(_ runtime: NodeRuntime) {
        current.withLock { $0 = runtime }
        nextGeneration.yield(runtime)
        homekit.withLock { $0 }?.follow(runtime)
        // Swift controls rendered while the node was starting could not reach its devices yet.
        for kind in swiftControls.map(\.kind) + extensions.all.flatMap(\.kinds) { runtime.center.push(kind: kind) }
    }

    /// SIGHUP or `switchboard apply`: validates the file first; a bad file keeps the running
    /// configuration.
    private func reload(stateFile: StateFile) async -> ReloadOutcome {
        log(.info, "reloading \(options.configPath)")
        let configuration: SwitchboardConfiguration
        let opened: OpenChips
        do {
            configuration = try await loadConfiguration()
            opened = try openChips(for: configuration)
        } catch {
            log(.error, "\(error)\nkeeping the running configuration")
            return .kept(String(describing: error))
        }
        guard let old = current.withLock({ $0 }) else { return .fatal }
        try? await old.persistRuntimeState()
        // An unchanged broker connection stays up: nothing on the broker (Home Assistant) flaps.
        let connection = old.bridge?.handOver(to: configuration)
        old.stopServices()
        // Its tasks (a command being performed, a message being handled, an auto-off) end before
        // its lines are handed over or released: nothing is torn down under a task still using it.
        await old.servicesEnded()
        // What the node knows of other systems' devices stays known where nothing changed them.
        var known = old.hub.remoteKnowledge
        known.coverPositions = old.covers.positions
        known.schedulesCheckedUntil = old.schedules.checkedUntil
        known.automationRuns = old.automations.runsInProgress
        // Output lines stay requested throughout.
        let handover = old.shutdown(handingOverTo: configuration)
        defer { handover.releaseRest() }
        do {
            let runtime = try await start(configuration, chips: opened, stateFile: stateFile, handover: handover, remembering: known, mqttConnection: connection)
            setCurrent(runtime)
            log(.info, "reloaded: node \(configuration.node), \(configuration.controls.count) controls")
            return .reloaded(old.configuration.changes(to: configuration))
        } catch {
            log(.error, "the new configuration could not start: \(error); restoring the previous one")
            do {
                let restored = try await start(old.configuration, chips: try openChips(for: old.configuration), stateFile: stateFile, handover: handover, remembering: known, mqttConnection: connection)
                setCurrent(restored)
                return .kept("the new configuration could not start: \(error); the previous one runs again")
            } catch {
                log(.error, "the previous configuration could not start again either: \(error)")
                current.withLock { $0 = nil }
                return .fatal
            }
        }
    }

    /// Re-reads devices.json, as SIGHUP does, and says how it went: what changed, or why the
    /// running configuration was kept.
    public func apply() async -> ReloadOutcome {
        await withCheckedContinuation { caller in
            guard reloadRequests.withLock({ $0.reload(answering: caller) }) else { return caller.resume(returning: .kept("switchboardd is stopping")) }
            doorbell.ring()
        }
    }

    private func serve(_ listener: UnixSocketListener) async {
        let admission = SocketAdmission()
        await withDiscardingTaskGroup { group in
            for await descriptor in listener.accepted {
                let user = SocketAdmission.peerUser(of: descriptor)
                if let refusal = admission.admit(user) {
                    try? SystemCall.writeAll(Array(ControlLineProtocol.encodeLine(SocketReply.failure(code: "busy", message: refusal)).utf8) + [UInt8(ascii: "\n")], to: descriptor)
                    SystemCall.close(descriptor)
                    continue
                }
                group.addTask {
                    await SocketSession(descriptor: descriptor, daemon: self).run()
                    admission.leave(user)
                }
            }
            group.cancelAll()
        }
    }

    /// The node serving now.
    var runtime: NodeRuntime? { current.withLock { $0 } }

    static func makeDirectory(_ path: String) throws {
        guard !path.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}
