#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControlKitCore
import SwitchboardHomeKit
import SwitchboardSupport
import SwitchboardConfiguration

/// The node as a HomeKit bridge: a ``HAPServer`` on devices.json's `homekit` port serving
/// ``HomeKitAccessories``, with the identity, pairings and ids of the state directory
/// (``HomeKitStateStore``). A service of the daemon: it follows each configuration that starts
/// (``follow(_:)``) — a reload that changes the `homekit` block (or the node's name it defaults
/// to) starts the server again, one that does not leaves it serving — and the accessories follow
/// the placements. A HomeKit state that cannot be read leaves the bridge off, saying why; the
/// rest of the daemon serves on.
public final class HomeKitBridge: Sendable {
    /// What is being served now.
    struct Serving: Sendable {
        var settings: HomeKitSettings
        var name: String
        var store: HomeKitStateStore
        var server: HAPServer
        var setupCode: String
        /// "devices.json" or "made on first start".
        var codeSource: String
    }

    /// What `switchboard homekit` and `switchboard status` show.
    public struct Report: Codable, Sendable, Equatable {
        /// Whether the bridge serves.
        public var serving: Bool
        public var port: Int?
        public var name: String?
        /// Only for `switchboard homekit`.
        public var setupCode: String?
        /// The `X-HM://` setup URI the Home app scans (as a QR code); only for `switchboard homekit`.
        public var setupURI: String?
        public var setupCodeSource: String?
        /// The paired controllers' identifiers.
        public var controllers: [String]?
        /// HAP's configuration number, bumped when the accessories change.
        public var configurationNumber: Int?
        /// Why it is off, when devices.json asks for it.
        public var problem: String?
    }

    private let stateDirectory: StateDirectory
    private let log: Log
    private let runtime: @Sendable () -> NodeRuntime?
    private let database: HomeKitAccessories
    private let runtimes: AsyncStream<NodeRuntime>
    private let nextRuntime: AsyncStream<NodeRuntime>.Continuation
    private let serving = Locked<Serving?>(nil)
    private let problem = Locked<String?>(nil)
    private let lastAdvertisement = Locked<HomeKitAdvertisement?>(nil)
    /// Where the `_hap._tcp` advertisement (mDNS) is started, updated and withdrawn: called with
    /// each new ``HomeKitAdvertisement``, nil when the bridge stops.
    public let advertisementChanged = Locked<(@Sendable (HomeKitAdvertisement?) -> Void)?>(nil)

    init(stateDirectory: StateDirectory, log: Log, runtime: @escaping @Sendable () -> NodeRuntime?) {
        self.stateDirectory = stateDirectory
        self.log = log
        self.runtime = runtime
        database = HomeKitAccessories(log: log, runtime: runtime)
        (runtimes, nextRuntime) = AsyncStream<NodeRuntime>.makeStream()
        let discovery = HomeKitDiscovery(log: log)
        advertisementChanged.withLock { $0 = { discovery.update($0) } }
    }

    /// A configuration starts serving: the bridge follows it.
    func follow(_ runtime: NodeRuntime) { nextRuntime.yield(runtime) }

    /// Serves until the graceful shutdown: each configuration's `homekit` block in turn.
    func run() async {
        await withGracefulShutdownHandler {
            var server: Task<Void, Never>?
            var changes: Task<Void, Never>?
            for await runtime in runtimes {
                changes?.cancel()
                let wanted = runtime.configuration.homekit.map { ($0, $0.name ?? runtime.configuration.name ?? runtime.configuration.node) }
                let current = serving.withLock { $0.map { ($0.settings, $0.name) } }
                // Without the block there is nothing to be off for.
                if wanted == nil { problem.withLock { $0 = nil } }
                if wanted?.0 != current?.0 || wanted?.1 != current?.1 || (wanted != nil && current == nil && server == nil) {
                    await stop(&server)
                    if let (settings, name) = wanted { server = start(settings, name: name, node: runtime.configuration.node) }
                }
                // Subscribed before the accessories are made: no change falls between.
                let stream = runtime.center.changes()
                let presses = runtime.buttons.values.map { ($0.settings.id, $0.clicks.subscribe()) }
                await rebuild()
                changes = Task { [self] in
                    await withDiscardingTaskGroup { group in
                        for (button, clicks) in presses {
                            group.addTask { for await (click, _) in clicks { self.database.press(button: button, click: click) } }
                        }
                        for await change in stream {
                            switch change {
                            case .presentation(let presentation):
                                if !database.update(presentation), HomeKitBridge.servesSpace(presentation) { await rebuild() }
                            case .removed:
                                await rebuild()
                            case .locked:
                                break
                            }
                        }
                        group.cancelAll()
                    }
                }
            }
            changes?.cancel()
            await stop(&server)
        } onGracefulShutdown: { [nextRuntime] in
            nextRuntime.finish()
        }
    }

    private static func servesSpace(_ presentation: ControlPresentation) -> Bool { presentation.space == .controlCenter }

    /// Opens the state and starts the server; nil (the bridge off, said in the log and in
    /// `switchboard status`) when it cannot.
    private func start(_ settings: HomeKitSettings, name: String, node: String) -> Task<Void, Never>? {
        let file = HomeKitStateFile(directory: stateDirectory)
        do {
            let (store, _, madeCode) = try HomeKitStateStore.open(file, needsSetupCode: settings.setupCode == nil)
            let setupCode = settings.setupCode ?? store.current.setupCode ?? ""
            let server = try HAPServer(port: UInt16(settings.port), accessory: try store.identity(), setupCode: try SetupCode(setupCode), store: store, database: database)
            let codeSource = settings.setupCode != nil ? "devices.json" : "made on first start, kept in \(file.path)"
            serving.withLock { $0 = Serving(settings: settings, name: name, store: store, server: server, setupCode: setupCode, codeSource: codeSource) }
            problem.withLock { $0 = nil }
            store.changed.withLock { $0 = { [weak self] _ in self?.advertise() } }
            if madeCode {
                let uri = Self.setupURI(code: setupCode, id: store.current.setupID)
                log(.info, "homekit: setup code \(setupCode) made for the Home app\(uri.map { " (setup URI \($0))" } ?? ""); switchboard homekit shows it again, with its QR code")
                // Once, where someone is looking: a terminal (under systemd, the journal has the line above).
                if let uri, SystemCall.isTerminal(2), let qr = try? QRCode(uri) {
                    try? SystemCall.writeAll(Array("Scan with the Home app to add \(name):\n\(qr.terminalText())".utf8), to: 2)
                }
            }
            let pairings = store.pairings.count
            log(.info, "homekit: bridge \"\(name)\" serving on port \(server.port) (setup code from \(settings.setupCode != nil ? "devices.json" : "the state directory")), \(pairings == 0 ? "not paired: add it in the Home app with its setup code" : "paired with \(pairings) controller\(pairings == 1 ? "" : "s")")")
            server.start()
            return Task { try? await server.run() }
        } catch {
            let reason = "HomeKit bridge off: \(error)"
            log(.error, reason)
            problem.withLock { $0 = reason }
            return nil
        }
    }

    private func stop(_ task: inout Task<Void, Never>?) async {
        let stopped = serving.withLock { serving -> Serving? in
            defer { serving = nil }
            return serving
        }
        stopped?.server.stop()
        task?.cancel()
        await task?.value
        task = nil
        if stopped != nil {
            log(.info, "homekit: bridge stopped")
            advertise()
        }
    }

    /// Makes the accessories again from the placements (ids from the state; the configuration
    /// number bumped when they changed).
    private func rebuild() async {
        guard let serving = serving.withLock({ $0 }), let runtime = runtime() else { return }
        let center = runtime.center
        var placed: [HomeKitAccessoryBuilder.Placed] = []
        var presentations: [String: ControlPresentation] = [:]
        for presentation in await center.presentations {
            guard let id = presentation.id else { continue }
            let device = center.placementNow(id).flatMap(NodeRuntime.chosenDevice)
            guard let kind = HomeKitServiceKind.of(presentation, device: device, in: runtime.configuration) else { continue }
            placed.append(.init(presentation: presentation, kind: kind))
            presentations[id] = presentation
        }
        var accessories: [HomeKitAccessory] = []
        do {
            try serving.store.update { state in
                var map = state.accessories
                accessories = HomeKitAccessoryBuilder.accessories(bridgeName: serving.name, node: runtime.configuration.node, placed: placed,
                                                                  buttons: runtime.configuration.buttons.filter { runtime.buttons[$0.id] != nil }, map: &map)
                let layout = accessories.map(\.layout).joined(separator: ";")
                if map.layout != layout {
                    if !map.layout.isEmpty { state.configurationNumber = state.configurationNumber % 65535 + 1 }
                    map.layout = layout
                }
                state.accessories = map
            }
        } catch {
            log(.error, "homekit: the accessories' ids could not be saved: \(error); they are served, but may move after a restart")
        }
        database.load(accessories, presentations: presentations)
        advertise()
    }

    /// Tells ``advertisementChanged`` what the advertisement says now, if it changed.
    private func advertise() {
        let now = serving.withLock { serving in
            serving.map { serving in
                let state = serving.store.current
                return HomeKitAdvertisement(name: serving.name, port: Int(serving.server.port), pairingIdentifier: state.pairingIdentifier,
                                            configurationNumber: state.configurationNumber, isPaired: !state.pairings.isEmpty, setupCode: serving.setupCode,
                                            setupID: state.setupID ?? "")
            }
        }
        let changed = lastAdvertisement.withLock { last -> Bool in
            defer { last = now }
            return last != now
        }
        if changed, let hook = advertisementChanged.withLock({ $0 }) { hook(now) }
    }

    /// What the bridge serves now; the setup code only when `withSetupCode`. nil: devices.json
    /// has no `homekit` block.
    func report(withSetupCode: Bool) -> Report? {
        if let serving = serving.withLock({ $0 }) {
            return Report(serving: true, port: Int(serving.server.port), name: serving.name, setupCode: withSetupCode ? serving.setupCode : nil,
                          setupURI: withSetupCode ? Self.setupURI(code: serving.setupCode, id: serving.store.current.setupID) : nil,
                          setupCodeSource: withSetupCode ? serving.codeSource : nil, controllers: serving.store.controllerIdentifiers,
                          configurationNumber: serving.store.current.configurationNumber)
        }
        guard let problem = problem.withLock({ $0 }) else { return nil }
        return Report(serving: false, problem: problem)
    }

    /// The setup URI of a setup code and setup ID, nil if either is not one.
    static func setupURI(code: String, id: String?) -> String? {
        guard let code = try? SetupCode(code), let id = id.flatMap({ try? HAPSetupID($0) }) else { return nil }
        return HAPSetupPayload(setupCode: code, setupID: id).uri
    }

    /// Removes every pairing (the accessory's key and ids stay) and ends every connection.
    /// - Returns: how many pairings were removed.
    func reset() throws -> Int {
        guard let serving = serving.withLock({ $0 }) else {
            throw HomeKitBridgeError(description: problem.withLock { $0 } ?? "the HomeKit bridge is off: devices.json has no homekit block")
        }
        let removed = try serving.store.update { state -> Int in
            defer {
                state.pairings = []
                state.failedPairSetupAttempts = 0
            }
            return state.pairings.count
        }
        serving.server.closeConnections()
        log(.info, "homekit: reset: \(removed) pairing\(removed == 1 ? "" : "s") removed; the bridge is unpaired")
        return removed
    }
}

/// The HomeKit bridge cannot do what was asked.
struct HomeKitBridgeError: Error, CustomStringConvertible {
    var description: String
}
