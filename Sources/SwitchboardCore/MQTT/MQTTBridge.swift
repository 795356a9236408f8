#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ControlKitCore
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration

/// Connects a node to the home's MQTT broker under Switchboard's topic contract: presentations
/// out (retained, only when changed, all again after every reconnect), commands, reloads, lock
/// and configuration in, devices of other systems followed on their state topics (each message a
/// push reload of the controls bound to them), and Home Assistant discovery.
public final class MQTTBridge: Sendable {
    let topics: TopicContract
    let settings: MQTTSettings
    let connection: MQTTConnection
    let discovery: HomeAssistantDiscovery?
    /// The node's parts, held strongly: the runtime holds the bridge, not the other way round, so
    /// a message still in hand when a reload drops the runtime reaches live objects.
    let runtime: NodeParts
    let log: Log
    let confirmations: StateConfirmations
    /// Commands to controls on other nodes waiting for their `/result`, by result topic and transaction.
    let results: Confirmations<JSONValue>
    /// The topics of other nodes followed for the configuration's `node` devices.
    let remoteRoutes: RemoteRoutes
    /// The devices of other systems, by the state topic they say their state on.
    let stateDevices: [String: [DeviceSettings]]
    /// The devices of other systems, by the topic they say whether they are online on.
    let availabilityDevices: [String: [DeviceSettings]]
    /// Rung when a device's health changed or its silence may have run out.
    let healthWake = Doorbell()
    /// Every control's command lane.
    let lanes = CommandLanes(limit: MQTTBridge.maximumCommandLanes)
    /// Incoming messages: handled on the connection's thread, or in turn in the bridge's task (``take(_:)``).
    let incoming = InTurnQueue<MQTTMessage>()
    /// The center's changes: published where they happen, or in turn in the bridge's task (``changed(_:)``).
    let changes = InTurnQueue<ControlChange>()
    /// devices.json's `homeAssistant` block of each placement that has one, by id.
    let entitySettingsByID: [String: HomeAssistantEntitySettings]
    /// Returns freed memory to the system at most once a second while messages come, and after the last.
    let memoryRelease = CoalescedAction { MemoryRelease.releaseFreeMemory() }
    /// Publishes the diagnostics at most once a second while messages are rejected.
    let diagnosticsRelease: CoalescedAction
    /// What ``diagnosticsRelease`` runs: set when the bridge runs.
    let diagnosticsTarget: LockedCallback<@Sendable () -> Void>
    /// Publishes the node's own retained topics again, at most once a second, when others overwrite them.
    let reassertRelease: CoalescedAction
    let reassertTarget: LockedCallback<@Sendable () -> Void>

    /// Each (re)connect's state requests, as the instant they went out: the retries' schedule starts there.
    let stateRequestRounds: AsyncStream<OffsetInstant>
    let stateRequestRound: AsyncStream<OffsetInstant>.Continuation

    struct State {
        /// Devices asked for their state at the last (re)connect that have not answered yet.
        var unansweredStates: Set<String> = []
        /// What was last published per topic, to publish only changes.
        var published: [String: [UInt8]] = [:]
        /// Topic and reason pairs already logged as malformed (at most ``MQTTBridge/rejectionMemory``).
        var loggedRejections: Set<String> = []
        /// Malformed messages by reason (at most ``MQTTBridge/rejectionMemory`` reasons; the rest as "other").
        var rejected: [String: Int] = [:]
        /// Rejections not logged since the memory filled, and when that was last said.
        var unlogged = 0
        var unloggedSaidAt: OffsetInstant?
        /// Reconnect attempts since the connection was last up.
        var failedAttempts = 0
        /// Why the connection was last said to be down, while it is down.
        var loggedReason: String?
        /// The connection went to the next configuration's bridge: it stays up when this one stops.
        var handedOver = false
        /// When the connection was lost, while it is down.
        var disconnectedSince: Date?
        /// Another client taking the session again and again.
        var takeovers = TakeoverDetector()
        /// The discovery topics announced, once the first full announcement has been made.
        var announced: Set<String>?
        /// Every entity was announced on this connection (since ``published`` was last emptied):
        /// a discovery topic another client wrote is set right from then on.
        var discoveryAnnounced = false
        /// The node's own retained topics, and what others wrote on them.
        var retained: RetainedTopicGuard
        /// The entity each placement was last announced with, by placement id: announced again when
        /// it changes (its name follows a configurable control's device, its icon the symbol).
        var announcedEntities: [String: [UInt8]] = [:]
        /// What the broker refused to let the node publish since it connected (MQTT 5).
        var refused = RefusedPublishes()
        /// What is known of each control on another node, by device id.
        var remoteControls: [String: RemoteControlState] = [:]
        /// The transactions of commands this node took, so that each is performed at most once.
        var performed = PerformedTransactions()
        /// Whether each device of another system can be trusted now, by device id.
        var health: [String: DeviceHealth] = [:]
    }

    // Invariant: only touched under the mutex.
    let state: Locked<State>

    /// - Parameter kept: the previous configuration's connection and counts, handed over because
    ///   its settings did not change (``handOver(to:)``): it stays up, and nothing on the broker flaps.
    /// - Throws: ``MQTTError`` for bad TLS or client settings, or an unreadable password file.
    public init(node runtime: NodeParts, settings: MQTTSettings, log: Log, keeping kept: Handover? = nil) throws {
        self.runtime = runtime
        self.settings = settings
        self.log = log
        confirmations = StateConfirmations(clock: runtime.clock)
        results = Confirmations(clock: runtime.clock)
        (stateRequestRounds, stateRequestRound) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        let topics = TopicContract(base: settings.baseTopic)
        self.topics = topics
        remoteRoutes = RemoteRoutes(devices: runtime.configuration.devices, base: topics.base)
        stateDevices = runtime.configuration.devices.reduce(into: [:]) { devices, device in
            for topic in device.mqtt?.stateTopics ?? [] { devices[topic.topic, default: []].append(device) }
        }
        availabilityDevices = Dictionary(grouping: runtime.configuration.devices.filter { $0.mqtt?.availability != nil }) { $0.mqtt?.availability?.topic ?? "" }
        entitySettingsByID = Dictionary(runtime.configuration.placements.compactMap { placement in placement.homeAssistant.map { (placement.id, $0) } }) { first, _ in first }
        let will = MQTTMessage(topic: topics.status, text: "offline", qos: 1, retain: true)
        var initial = State(retained: RetainedTopicGuard(statusTopic: topics.status))
        initial.health = Self.initialHealth(runtime.configuration, at: runtime.clock.now)
        state = Locked(initial)
        discovery = settings.discovery
            ? HomeAssistantDiscovery(prefix: settings.discoveryPrefix, node: runtime.configuration.node, nodeName: runtime.configuration.name, topics: topics, version: Switchboard.version)
            : nil
        let diagnostics = LockedCallback<@Sendable () -> Void>()
        diagnosticsTarget = diagnostics
        diagnosticsRelease = CoalescedAction(clock: runtime.clock) { diagnostics.callback?() }
        let reassert = LockedCallback<@Sendable () -> Void>()
        reassertTarget = reassert
        reassertRelease = CoalescedAction(clock: runtime.clock) { reassert.callback?() }
        if let kept {
            connection = kept.connection
            state.withLock {
                $0.rejected = kept.rejected
                $0.retained = kept.retained
                $0.published = kept.published
                $0.performed = kept.performed
                $0.health = Self.carried(kept, into: $0.health, runtime.configuration, at: runtime.clock.now)
            }
            return
        }
        var configuration = MQTTClientConfiguration(
            host: settings.host, port: settings.port, clientID: Self.clientID(settings, node: runtime.configuration.node), keepalive: settings.keepalive
        )
        configuration.username = settings.username
        // Nothing Switchboard accepts is larger; a flood of large messages costs no memory.
        configuration.maximumPayloadSize = CommandPayload.maximumSize
        // Under MQTT 5 the broker sends nothing larger at all (it drops it for this node).
        configuration.maximumPacketSize = Self.maximumPacketSize
        configuration.cleanSession = settings.cleanSession
        if let file = settings.passwordFile {
            do throws(SecretFileError) {
                configuration.password = try PasswordFile.readChecked(file)
            } catch {
                throw MQTTError(.configuration, call: "passwordFile", detail: error.description)
            }
        }
        if let key = settings.tls?.keyFile {
            do throws(SecretFileError) {
                try SecretFile.check(key)
            } catch {
                throw MQTTError(.configuration, call: "tls.keyFile", detail: error.description)
            }
        }
        configuration.protocolV5 = settings.protocolVersion == "5"
        configuration.tlsCAFile = settings.tls?.caFile
        configuration.tlsCertificateFile = settings.tls?.certificateFile
        configuration.tlsKeyFile = settings.tls?.keyFile
        configuration.will = will
        configuration.clock = runtime.clock
        // Served on the node's loop, the control center's executor: a message is handled where the
        // center runs.
        connection = try MQTTConnection(configuration, loop: runtime.center.loop)
    }

    /// The largest MQTT packet the node takes (MQTT 5): commands are at most 4 KiB, the state
    /// messages of other systems' devices a few; a larger one costs the node nothing.
    static let maximumPacketSize = 65_536

    /// What the broker refused the node, for `status`, `health` and the diagnostics: what it
    /// refused to let the node publish since it connected, and its session while another client
    /// keeps taking it.
    public var refusalWarnings: [String] {
        let user = settings.username
        let now = runtime.clock.now
        let (refused, takenOver) = state.withLock { ($0.refused.warnings(user: user), $0.takeovers.isOngoing(at: now)) }
        return (takenOver ? [takeoverWarning] : []) + refused
    }

    /// What a node whose session other clients keep taking says, with the fix.
    var takeoverWarning: String {
        "another client is using this node's client id (\(clientID)): the broker keeps dropping this node's connection moments after accepting it. "
            + "Most likely a second node is named \(runtime.configuration.node), or another broker user connects with that client id: "
            + "give each node its own \"node\" (or mqtt.clientID) in devices.json, and bind client ids to users on the broker "
            + "(use_username_as_clientid true on each listener, as deploy/mosquitto/switchboard.conf does)"
    }

    /// What a bridge hands the next configuration's: its connection, and its counts of rejected
    /// messages (the diagnostics count from the daemon's start, not the configuration's).
    public struct Handover: Sendable {
        let connection: MQTTConnection
        let rejected: [String: Int]
        /// What the node published lately: echoes still on their way are known as its own, and
        /// what did not change is not published again.
        let retained: RetainedTopicGuard
        let published: [String: [UInt8]]
        /// The transactions taken lately: one that arrives again after a reload is not performed again.
        let performed: PerformedTransactions
        /// Each device of another system's health, with its settings, at `handedOverAt`: a device
        /// the next configuration leaves as it was keeps it (retained state that comes again does
        /// not make an offline device fresh for a moment).
        let health: [String: (settings: DeviceSettings, health: DeviceHealth)]
        let handedOverAt: OffsetInstant
    }

    /// Hands the connection to the next configuration's bridge if that one connects the same way
    /// (same settings and node): this bridge's readers end, and when it stops it neither says
    /// `offline` nor disconnects. Nil when the settings changed: this bridge then disconnects as usual.
    public func handOver(to next: SwitchboardConfiguration) -> Handover? {
        guard next.mqtt == settings, next.node == runtime.configuration.node else { return nil }
        let (rejected, retained, published, performed, health) = state.withLock { state in
            state.handedOver = true
            return (state.rejected, state.retained, state.published, state.performed, state.health)
        }
        connection.renewStreams()
        let devices = runtime.configuration
        return Handover(
            connection: connection, rejected: rejected, retained: retained, published: published, performed: performed,
            health: Dictionary(uniqueKeysWithValues: health.compactMap { id, health in devices.device(id).map { (id, ($0, health)) } }),
            handedOverAt: runtime.clock.now
        )
    }

    /// The client id the node connects with: `mqtt.clientID`, else `switchboard-<node>`.
    static func clientID(_ settings: MQTTSettings, node: String) -> String { settings.clientID ?? "switchboard-\(node)" }
    var clientID: String { Self.clientID(settings, node: runtime.configuration.node) }

    /// Malformed messages so far, by reason.
    public var rejectedCounts: [String: Int] { state.withLock { $0.rejected } }

    /// Connects and serves until cancelled; then publishes `offline` and disconnects.
    public func run() async {
        // Other systems' devices and other nodes' controls: what they keep retained is read again
        // by each configuration.
        let followed = runtime.configuration.devices.flatMap { $0.mqtt?.stateTopics.map(\.topic) ?? [] }
            + Array(Set(availabilityDevices.keys)).sorted() + remoteRoutes.filters
        var filters = [topics.set("+"), topics.configure("+"), topics.reload, topics.lockSet, topics.push("+")] + topics.ownRetainedFilters + followed
        if !runtime.configuration.covers.isEmpty { filters.append(topics.coverSet("+")) }
        if !runtime.configuration.schedules.isEmpty { filters.append(topics.pausableSet(.schedules, "+")) }
        if !runtime.configuration.automations.isEmpty { filters.append(topics.pausableSet(.automations, "+")) }
        // Its own discovery too: what another client writes there is set right.
        if let discovery { filters += [discovery.prefix + "/status", discovery.ownFilter] }
        connection.setSubscriptions(filters, qos: 1)
        diagnosticsTarget.set { [weak self] in self?.publishDiagnostics() }
        reassertTarget.set { [weak self] in self?.reassertOwnTopics() }
        runtime.hub.setRemoteCommandSender { [weak self] device, request in
            try await self?.command(device, request)
        }
        let observation = runtime.center.observeChanges { [weak self] change in self?.changed(change) }
        defer { observation.end() }
        let announced = runtime.automations?.announcements.observe { [weak self] announcement in self?.publishAnnouncement(announcement) }
        defer { announced?.end() }
        // Only the inputs' changes wake the task that publishes them.
        let inputs = Set(runtime.hub.inputDevices.map(\.id))
        let inputChanges = runtime.hub.valueChanges.subscribe(where: { inputs.contains($0) })
        connection.setMessageHandler { [weak self] message in
            guard let self else { return false }
            self.take(message)
            return true
        }
        if connection.isStarted {
            // Kept from the previous configuration, and possibly up: this configuration's
            // controls and discovery go out now (a reconnect would send them again anyway).
            if connection.connected {
                await publishEverything()
                requestStates()
            }
            // This configuration's devices start with no value: what other systems and nodes keep
            // retained comes again.
            connection.resubscribe(followed, qos: 1)
        } else {
            connection.start()
        }
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in self.connection.events { await self.handle(event) }
            }
            // The lanes run on the node's loop, the center's executor: a command goes from the
            // message to the control's action and back to its answer without leaving the thread.
            group.addTask(executorPreference: runtime.center.loop) { await self.serveIncoming() }
            // Memory freed after a burst goes back to the system once the burst is over (glibc
            // keeps it otherwise: 51 MiB of heap after the benchmark's load, 8 MiB after a trim).
            group.addTask { await self.memoryRelease.run() }
            group.addTask { await self.diagnosticsRelease.run() }
            group.addTask { await self.reassertRelease.run() }
            group.addTask { await self.serveStateRequestRetries() }
            group.addTask { await self.serveHealth() }
            for kind in PausableKind.allCases { group.addTask { await self.servePausableChanges(kind) } }
            group.addTask { await self.changes.serve { await self.publishInTurn($0) } }
            group.addTask {
                for await id in inputChanges { self.publishInput(id) }
            }
            // Wait (without waking) for cancellation, then say goodbye.
            let (cancelled, keepOpen) = AsyncStream<Void>.makeStream()
            for await _ in cancelled {}
            keepOpen.finish()
            group.cancelAll()
        }
        runtime.hub.setRemoteCommandSender(nil)
        guard !state.withLock({ $0.handedOver }) else { return }
        connection.setMessageHandler(nil)
        // Said and acknowledged, or, after 2 s without an acknowledgement, said by the will.
        await connection.stop(saying: MQTTMessage(topic: topics.status, text: "offline", qos: 1, retain: true), within: .seconds(2))
    }

    // MARK: Out

    private func handle(_ event: MQTTConnectionEvent) async {
        switch event {
        case .connected:
            log(.info, "mqtt: connected to \(settings.host):\(settings.port) as \(topics.base)")
            let now = runtime.clock.now
            state.withLock {
                $0.published = [:]
                $0.discoveryAnnounced = false
                $0.failedAttempts = 0
                $0.loggedReason = nil
                $0.disconnectedSince = nil
                $0.takeovers.connected(at: now)
                $0.retained.settle()
                $0.refused.reset()
                for id in $0.health.keys { $0.health[id]?.listeningAgain(at: now) }
            }
            healthWake.ring()
            await publishEverything()
            requestStates()
        case .refused(let reason):
            log(.error, "mqtt: \(settings.host):\(settings.port) refused the connection: \(reason); check username and passwordFile in devices.json and the broker's ACL")
        case .publishRefused(let topic, let reason):
            if state.withLock({ $0.refused.record(topic, reason: reason) }) {
                log(.error, "mqtt: the broker refused to let this node publish \(topic) (\(reason)); allow \(brokerUser(settings.username)) to write it in the broker's ACL (see deploy/mosquitto/switchboard.acl)")
                diagnosticsRelease.note()
            }
        case .disconnected(let reason, let retryIn):
            // One line when the connection is lost, then one per 20 failed attempts or when the
            // reason changes: a board whose broker is down for days must not fill its journal.
            let now = runtime.clock.now
            let (attempt, takenOver, newReason) = state.withLock { state -> (Int, Bool, Bool) in
                state.failedAttempts += 1
                if state.disconnectedSince == nil { state.disconnectedSince = Date() }
                state.retained.settle()
                for id in state.health.keys { state.health[id]?.stoppedListening(at: now) }
                defer { state.loggedReason = reason }
                return (state.failedAttempts, state.takeovers.lost(at: now), state.loggedReason != reason)
            }
            if takenOver { log(.error, "mqtt: \(takeoverWarning)") }
            if attempt == 1 || attempt % 20 == 0 || newReason {
                log(.warning, "mqtt: disconnected (\(reason)); retrying in \(DurationText.format(retryIn))\(attempt > 1 ? " (attempt \(attempt))" : "")")
            }
        }
    }

    /// Every presentation, configuration, the lock, and discovery: after each (re)connect, and
    /// when Home Assistant comes online.
    func publishEverything() async {
        publishRetained(topics.status, Array("online".utf8))
        let center = runtime.center
        for presentation in await center.presentations {
            publishPresentation(presentation)
            publishConfiguration(of: presentation)
        }
        publishLock(await center.isLocked)
        for input in runtime.hub.inputDevices { publishInput(input.id) }
        publishButtons()
        publishPausables()
        publishDiagnostics()
        await publishDiscovery()
    }

    /// `<base>/inputs/<id>`: `ON` or `OFF`, retained; nothing while its line cannot be read.
    func publishInput(_ id: String) {
        guard let value = try? runtime.hub.value(of: id) else { return }
        publishRetained(topics.input(id), Array((value ? "ON" : "OFF").utf8))
    }

    /// `<base>/diagnostics`: the version and the count of rejected messages, retained.
    func publishDiagnostics() {
        let rejected = state.withLock { $0.rejected.values.reduce(0, +) }
        let problems = runtime.problems() + refusalWarnings
        let payload = JSONValue.object([
            ("problems", .array(problems.map(JSONValue.string))), ("rejectedMessages", .number(Double(rejected))), ("version", .string(Switchboard.version)),
        ])
        publishRetained(topics.diagnostics, Array(ControlLineProtocol.encodeLine(payload).utf8))
    }

    /// A change of the center, where it happens (on the center's executor, in order): published at
    /// once, unless its entity is to be announced for the first time (which asks the center for
    /// the kind's parameters) or such a change waits already; those go to the bridge's task, and
    /// what comes after them waits behind them.
    func changed(_ change: ControlChange) {
        changes.submit(change) { change in
            guard !needsFirstAnnouncement(change) else { return false }
            publishAtOnce(change)
            return true
        }
    }

    /// A change published in the bridge's task, after those before it.
    private func publishInTurn(_ change: ControlChange) async {
        guard case .presentation(let presentation) = change, needsFirstAnnouncement(change), let discovery else { return publishAtOnce(change) }
        publishPresentation(presentation)
        publishConfiguration(of: presentation)
        let added = await announce(presentation, discovery)
        state.withLock { $0.announced?.formUnion(added) }
        if let announced = state.withLock({ $0.announced }) { keepRecord(of: announced) }
    }

    /// Whether a change brings a control whose entity was never announced (placed at runtime with
    /// `switchboard add`), once the first full announcement has been made.
    private func needsFirstAnnouncement(_ change: ControlChange) -> Bool {
        guard case .presentation(let presentation) = change, let discovery, !showsOnlyAnInput(presentation),
              let topic = discovery.entityTopic(for: presentation, settings: entitySettings(presentation)),
              let announced = state.withLock({ $0.announced }) else { return false }
        return !announced.contains(topic)
    }

    private func publishAtOnce(_ change: ControlChange) {
        switch change {
        case .presentation(let presentation):
            publishPresentation(presentation)
            publishConfiguration(of: presentation)
            announceIfChanged(presentation)
        case .removed(let id):
            // The entity goes first, then its state: Home Assistant would otherwise render its
            // template against the empty state once more.
            let removals = discovery?.removals(for: id) ?? []
            for message in removals { publishRetained(message.topic, [], force: true) }
            publishRetained(topics.control(id), [])
            state.withLock { _ = $0.announcedEntities.removeValue(forKey: id) }
            forget(Set(removals.map(\.topic)))
        case .locked(let locked):
            publishLock(locked)
        }
    }

    private func publishPresentation(_ presentation: ControlPresentation) {
        guard let id = presentation.id else { return }
        publishRetained(topics.control(id), Array(presentation.jsonLine.utf8))
    }

    private func publishConfiguration(of presentation: ControlPresentation) {
        guard let id = presentation.id, let placement = runtime.center.placementNow(id),
              let device = NodeRuntime.chosenDevice(placement) else { return }
        publishRetained(topics.configuration(id), Array(device.utf8))
    }

    private func publishLock(_ locked: Bool) {
        publishRetained(topics.lock, Array((locked ? "LOCKED" : "UNLOCKED").utf8))
    }

    /// Every entity and trigger; then removes what was announced before and is not placed now
    /// (placements removed while the daemon was down or by a reload, and the Lock Screen and Action
    /// button entities of versions that announced them), and remembers what was announced.
    private func publishDiscovery() async {
        guard let discovery else { return }
        let center = runtime.center
        var announced: Set<String> = []
        let presentations = await center.presentations
        for presentation in presentations {
            announced.formUnion(await announce(presentation, discovery))
        }
        var messages = discovery.nodeEntities() + runtime.hub.inputDevices.map(discovery.inputEntity)
        for button in runtime.configuration.actionButtons where button.announce.contains(.mqtt) {
            messages += discovery.triggers(for: button.id)
        }
        for button in runtime.configuration.buttons {
            messages += discovery.buttonEntities(for: button)
        }
        messages += runtime.configuration.schedules.map { discovery.pausableEntity(.schedules, $0.id) }
            + runtime.configuration.automations.map { discovery.pausableEntity(.automations, $0.id) }
        for message in messages {
            publishRetained(message.topic, message.payload.map { Array(ControlLineProtocol.encodeLine($0).utf8) } ?? [], force: true)
            announced.insert(message.topic)
        }
        let previous = runtime.homeAssistantRecord.announced
        var gone = (previous ?? []).subtracting(announced)
        if previous == nil {
            // Announced by a version that kept no record: clear every entity a placement not in
            // Control Center could have had.
            for presentation in presentations where presentation.space != .controlCenter {
                gone.formUnion(presentation.id.map { discovery.removals(for: $0).map(\.topic) } ?? [])
            }
        }
        for topic in gone.subtracting(announced).sorted() { publishRetained(topic, [], force: true) }
        state.withLock {
            $0.announced = announced
            $0.discoveryAnnounced = true
        }
        // What others wrote on its discovery topics meanwhile is set right now.
        reassertRelease.note()
        keepRecord(of: announced)
    }

    /// Records what is announced, so that a restart removes what is no longer placed.
    private func keepRecord(of announced: Set<String>) {
        do throws(SystemCallError) {
            try runtime.homeAssistantRecord.record(announced)
        } catch {
            log(.warning, "mqtt: the record of announced Home Assistant entities cannot be saved (\(error)); free space in the state directory, or entities removed meanwhile may stay in Home Assistant after a restart")
        }
    }

    /// Publishes a placed control's entities; returns their topics.
    private func announce(_ presentation: ControlPresentation, _ discovery: HomeAssistantDiscovery) async -> [String] {
        let parameters = (try? await runtime.center.parameters(ofKind: presentation.kind)) ?? []
        let devices = parameters.count == 1 ? parameters[0].options : []
        guard !showsOnlyAnInput(presentation) else { return [] }
        // A cover is one `cover` entity, for its toggle; its stop button is that entity's stop.
        if let cover = runtime.configuration.cover(ofKind: presentation.kind) {
            guard let id = presentation.id, presentation.space == .controlCenter, presentation.kind == cover.toggleKind else { return [] }
            let message = discovery.coverMessage(for: cover, placement: id, settings: entitySettings(presentation))
            publishRetained(message.topic, message.payload.map { Array(ControlLineProtocol.encodeLine($0).utf8) } ?? [], force: true)
            return [message.topic]
        }
        let messages = discovery.messages(for: presentation, devices: devices, settings: entitySettings(presentation), followsStale: followsDeviceHealth(presentation))
        if let id = presentation.id, let entity = messages.first?.payload {
            state.withLock { $0.announcedEntities[id] = Array(entity.jsonLine.utf8) }
        }
        return messages.map { message in
            let payload = message.payload.map { Array(ControlLineProtocol.encodeLine($0).utf8) } ?? []
            publishRetained(message.topic, payload, force: true)
            return message.topic
        }
    }

    /// A control that shows an input device and drives nothing (a door contact's toggle) gets no
    /// entity of its own: the input's `binary_sensor` is it in Home Assistant.
    private func showsOnlyAnInput(_ presentation: ControlPresentation) -> Bool {
        let configuration = runtime.configuration
        guard let control = configuration.control(presentation.kind), let device = control.device else { return false }
        return configuration.device(device)?.kind == .input
    }

    /// A control that drives or shows a device of another system: its entity is unavailable
    /// while the control is stale, as that device's own would be. A configurable control follows
    /// the device chosen now (its presentation is stale while that one is), when any of its
    /// choices is another system's; its device `select` keeps the node's availability, so another
    /// device can be chosen while the chosen one is offline.
    private func followsDeviceHealth(_ presentation: ControlPresentation) -> Bool {
        let configuration = runtime.configuration
        guard let control = configuration.control(presentation.kind) else { return false }
        let shown = control.devices.isEmpty ? [control.stateDevice ?? control.device].compactMap { $0 } : control.devices
        return shown.contains { configuration.device($0)?.mqtt != nil }
    }

    /// devices.json's `homeAssistant` block of a placement, if it has one.
    private func entitySettings(_ presentation: ControlPresentation) -> HomeAssistantEntitySettings? {
        presentation.id.flatMap { entitySettingsByID[$0] }
    }

    /// An announced entity that changed (its name, when a configurable control now drives another
    /// device; its icon, when the control shows another symbol) is announced again. Other changes
    /// (values, status) cost one comparison. (A control placed at runtime gets its entities in
    /// ``publishInTurn(_:)``.)
    private func announceIfChanged(_ presentation: ControlPresentation) {
        let settings = entitySettings(presentation)
        guard let discovery, !showsOnlyAnInput(presentation), let id = presentation.id, let topic = discovery.entityTopic(for: presentation, settings: settings),
              state.withLock({ $0.announced?.contains(topic) == true }),
              // The select, if any, is named after the control, which a presentation change leaves alone.
              let entity = discovery.entityMessage(for: presentation, settings: settings, followsStale: followsDeviceHealth(presentation))?.payload else { return }
        let payload = Array(entity.jsonLine.utf8)
        let changed = state.withLock { state in
            defer { state.announcedEntities[id] = payload }
            return state.announcedEntities[id] != payload
        }
        if changed { publishRetained(topic, payload, force: true) }
    }

    /// Entities removed: no longer announced.
    private func forget(_ removed: Set<String>) {
        guard let announced = state.withLock({ state -> Set<String>? in
            state.announced?.subtract(removed)
            return state.announced
        }) else { return }
        keepRecord(of: announced)
    }

    /// Publishes a retained message unless the same payload was the last published on the topic.
    func publishRetained(_ topic: String, _ payload: [UInt8], force: Bool = false) {
        let changed = state.withLock { state -> Bool in
            if !force, state.published[topic] == payload { return false }
            state.published[topic] = payload
            if isGuarded(topic) { state.retained.published(topic, payload) }
            return true
        }
        if changed { connection.publish(MQTTMessage(topic: topic, payload: payload, qos: 1, retain: true)) }
    }

    /// Publishes an Action button's announcement on `<base>/action-buttons/<id>`.
    public func publish(_ announcement: ActionButtonAnnouncement, from button: String) {
        connection.publish(MQTTMessage(topic: topics.actionButton(button), text: ControlLineProtocol.encodeLine(announcement), qos: 1))
    }

    // MARK: Devices of other systems

    /// Publishes a command for a device of another system and waits for its state topic to
    /// confirm, or performs a control on another node (``commandRemote(_:_:_:)``).
    /// While the broker is away it is refused at once; and it goes out at QoS 0, so a command
    /// caught in a connection that drops is lost rather than sent late, after its caller was told
    /// it failed (libmosquitto would resend a QoS 1 message after the reconnect).
    private func command(_ device: DeviceSettings, _ request: ControlRequest) async throws {
        if let remote = device.remote { return try await commandRemote(device, remote, request) }
        guard let mqtt = device.mqtt, case .setValue(let value) = request else {
            throw ControlError(.wrongRequest, detail: "\(device.name) is switched on or off, not pressed")
        }
        try requireConnection(for: device)
        let command = MQTTMessage(topic: mqtt.commandTopic, text: value ? mqtt.onPayload : mqtt.offPayload, qos: 0)
        guard await confirmations.wait(for: device.id, value: value, timeout: mqtt.timeout, after: { connection.publish(command) }) else {
            updateHealth(of: device.id) { $0.unanswered(value ? "ON" : "OFF", after: mqtt.timeout) }
            throw ControlError(.performFailed, detail: "\(device.name) did not confirm \(value ? "on" : "off") on \(mqtt.stateTopic) within \(DurationText.format(mqtt.timeout))")
        }
    }

    /// Refuses a command to a device reached through the broker while the broker is away.
    func requireConnection(for device: DeviceSettings) throws {
        guard connection.connected else {
            let since = state.withLock { $0.disconnectedSince }.map { " since \(Self.clockTime($0))" } ?? ""
            throw ControlError(.performFailed, detail: device.unreachableWithoutBroker(since: since) + "; nothing was sent")
        }
    }

    /// "12:04:10", local time.
    static func clockTime(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970), parts = tm()
        localtime_r(&seconds, &parts)
        var text = [CChar](repeating: 0, count: 16)
        let length = strftime(&text, text.count, "%H:%M:%S", &parts)
        return String(decoding: text.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Stops when cancelled (publishing `offline` first): a group stops it with
/// ``ServiceGroup/Entry/Stop/cancellation``.
extension MQTTBridge: Service {}
