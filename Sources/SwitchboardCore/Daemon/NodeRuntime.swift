import ControlKitCore
import SwitchboardGPIO
import SwitchboardMQTT
import SwitchboardSupport
import SwitchboardConfiguration

/// Everything one configuration brings up: the devices and their lines, the control center with
/// its controls and placements, and the auto-off schedule. SIGHUP replaces it with a new one.
public final class NodeRuntime: Sendable {
    public let configuration: SwitchboardConfiguration
    public let hub: DeviceHub
    public let center: ControlCenter
    public let autoOff: AutoOffService
    /// The blinds, shutters and garage doors, with their controls.
    public let covers: CoverService
    public let handler: ControlCommandHandler
    /// Which Swift control kinds read which devices, so that they follow them.
    public let readers = DeviceReaders()
    /// The configuration's control kinds bound to each device (a Swift kind that reads one is in ``readers``).
    private let declaredKinds: [String: [String]]
    /// The MQTT side, when devices.json configures a broker (set once, at the end of init).
    public var bridge: MQTTBridge? { bridgeBox.withLock { $0 } }
    private let bridgeBox = Locked<MQTTBridge?>(nil)
    /// The Action buttons, by id.
    public let actionButtons: [String: ActionButtonService]
    /// The push-buttons with short, double and long presses, by id.
    public let buttons: [String: ButtonService]
    /// devices.json's schedules.
    public let schedules: ScheduleService
    /// devices.json's automations.
    public let automations: AutomationService
    let speech = SpeechAnnouncer()
    /// The clock timers run on: countdowns, pulses, LED blinks.
    let clock: AnyClock
    /// The Home Assistant entities the MQTT bridge last announced.
    let homeAssistantRecord: HomeAssistantRecord
    /// Whether ``stopServices()`` was called, and the group ``runServices()`` runs, to stop.
    private let stopping = Locked<(requested: Bool, services: ServiceGroup?)>((false, nil))
    /// Finished when ``runServices()`` has returned: nothing of this configuration runs any more.
    private let ended: AsyncStream<Void>
    private let end: AsyncStream<Void>.Continuation
    private let log: Log
    /// What went wrong with the node beyond this configuration (an unreadable state file moved
    /// aside at start), for the MQTT diagnostics.
    let problems: @Sendable () -> [String]

    /// Requests the lines (or takes them from the previous configuration's `handover`), registers
    /// the controls and places the placements.
    /// - Throws: ``GPIOError`` or ``ControlError``; nothing stays requested but what goes back to
    ///   the handover.
    public init(
        configuration: SwitchboardConfiguration, chips: [String: any GPIOChip], persisted: PersistedState,
        stateFile: StateFile?, extraControls: [ControlDefinition] = [], handover: LineHandover = .none,
        remembering known: RemoteKnowledge = .none, mqttConnection: MQTTBridge.Handover? = nil, log: Log, problems: @escaping @Sendable () -> [String] = { [] },
        clock: some Clock<Duration> = ContinuousClock()
    ) async throws {
        self.configuration = configuration
        declaredKinds = Self.declaredKinds(configuration)
        self.log = log
        self.problems = problems
        self.clock = AnyClock(clock)
        hub = try DeviceHub(configuration: configuration, chips: chips, persisted: persisted, stateFile: stateFile, handover: handover, remembering: known, clock: clock)
        homeAssistantRecord = HomeAssistantRecord(directory: stateFile?.stateDirectory?.directory, legacy: persisted.announced)
        if let problem = homeAssistantRecord.problem { log(.warning, "mqtt: \(problem)") }
        do {
            autoOff = AutoOffService(clock: clock)
            // The center lives on the node's loop, where the MQTT connection's messages arrive: the
            // connection kept from the previous configuration brings its loop along.
            let loop = try mqttConnection?.connection.loop ?? EventLoop(name: "switchboard.node")
            center = ControlCenter(clock: clock, bundleName: configuration.node, loop: loop)
            covers = CoverService(configuration: configuration, hub: hub, remembering: known, clock: clock)
            try await center.register(
                ConfiguredControls.definitions(configuration, hub: hub, autoOff: autoOff) + CoverControls.definitions(configuration, covers: covers) + extraControls
            )
            handler = ControlCommandHandler(center: center, authenticatesEveryCommand: true)
            var buttons: [String: ActionButtonService] = [:]
            for button in configuration.actionButtons {
                guard let chip = chips[button.gpio.chip] else { continue }
                buttons[button.id] = try ActionButtonService(settings: button, chip: chip, center: center, clock: clock)
            }
            actionButtons = buttons
            var pushButtons: [String: ButtonService] = [:]
            for button in configuration.buttons {
                guard let chip = chips[button.gpio.chip] else { continue }
                pushButtons[button.id] = try ButtonService(settings: button, chip: chip, center: center, clock: clock)
            }
            self.buttons = pushButtons
            // Schedules act unattended, as MQTT commands do: the lock holds for them.
            schedules = ScheduleService(
                configuration: configuration, persisted: hub.persisted, checkedSince: known.schedulesCheckedUntil,
                runner: ActionRunner(handler: ControlCommandHandler(center: center, authenticatesEveryCommand: false)), clock: clock,
                save: { [hub] change in
                    do { try hub.updatePersisted(change) } catch { log(.error, "schedules: the last run was not saved: \(error)") }
                }, log: log
            )
            // Automations act unattended too.
            automations = AutomationService(
                configuration: configuration, persisted: hub.persisted, continuing: known.automationRuns,
                runner: ActionRunner(handler: ControlCommandHandler(center: center, authenticatesEveryCommand: false)), clock: clock,
                save: { [hub] change in
                    do { try hub.updatePersisted(change) } catch { log(.error, "automations: the last run was not saved: \(error)") }
                }, log: log
            )
            (ended, end) = AsyncStream<Void>.makeStream()

            // A countdown resumes only for an output that came back on (restore "last" or "on").
            for (id, deadline) in persisted.autoOff.sorted(by: { $0.key < $1.key }) where configuration.device(id) != nil {
                if (try? hub.value(of: id)) == true { autoOff.resume(id, wallDeadline: deadline) }
            }
            try hub.updatePersisted { state in
                state.autoOff = state.autoOff.filter { self.autoOff.isRunning($0.key) }
                if self.homeAssistantRecord.carriedOver { state.announced = nil }
            }
            await center.setLocked(persisted.locked)
            for placement in Self.placements(configuration, persisted) { await place(placement) }
            try hub.updatePersisted { _ in }
            if let mqtt = configuration.mqtt {
                let bridge = try MQTTBridge(node: parts, settings: mqtt, log: log, keeping: mqttConnection)
                bridgeBox.withLock { $0 = bridge }
            }
        } catch {
            // The lines go back to the handover, for the previous configuration or to be released.
            handover.absorb(hub.shutdown(handingOverTo: configuration))
            throw error
        }
    }

    /// Places a placement of devices.json or of the state file; logs why not if it cannot.
    private func place(_ placement: PlacementSettings) async {
        do {
            try await center.place(
                kind: placement.control, in: placement.space, size: placement.size,
                configuration: try await Self.configuration(choosing: placement.device, for: placement.control, in: center), id: placement.id
            )
        } catch {
            log(.warning, "placement \"\(placement.id)\" skipped: \(error)")
        }
    }

    /// Registers controls that were not known when the node started (a control extension that
    /// listed them late), and places the placements that name them.
    public func addControls(_ definitions: [ControlDefinition]) async {
        var added: Set<String> = []
        for definition in definitions where await center.definition(ofKind: definition.kind) == nil {
            guard (try? await center.register([definition])) != nil else { continue }
            added.insert(definition.kind)
        }
        guard !added.isEmpty else { return }
        for placement in Self.placements(configuration, hub.persisted) where added.contains(placement.control) {
            if await center.placement(placement.id) == nil { await place(placement) }
        }
    }

    /// The configuration that chooses `device` for a kind: its one parameter set to it (`device`
    /// for devices.json controls, `light` for a Swift control whose intent has `@Parameter var light`).
    static func configuration(choosing device: String?, for kind: String, in center: ControlCenter) async throws -> [String: String] {
        guard let device else { return [:] }
        let parameters = try await center.parameters(ofKind: kind)
        guard parameters.count == 1, let name = parameters.first?.name else {
            throw ControlError(.invalidConfiguration, kind: kind, detail: "it is not configured with one device")
        }
        return [name: device]
    }

    /// The device a placement's configuration chooses, whatever its parameter is called.
    static func chosenDevice(_ placement: ControlPlacement) -> String? {
        placement.configuration.count == 1 ? placement.configuration.values.first : nil
    }

    /// devices.json's placements, less those removed at runtime, with runtime changes applied.
    static func placements(_ configuration: SwitchboardConfiguration, _ persisted: PersistedState) -> [PlacementSettings] {
        var result = configuration.placements.filter { !persisted.removedPlacements.contains($0.id) }
        for saved in persisted.placements {
            let placement = PlacementSettings(
                id: saved.id, control: saved.control, space: ControlSpace(rawValue: saved.space) ?? .controlCenter,
                size: saved.size.flatMap(ControlSize.init(rawValue:)), device: saved.device
            )
            if let index = result.firstIndex(where: { $0.id == saved.id }) { result[index] = placement } else { result.append(placement) }
        }
        return result
    }

    /// What of the node its MQTT bridge works with (``NodeParts``).
    var parts: NodeParts { NodeParts(configuration: configuration, hub: hub, center: center, homeAssistantRecord: homeAssistantRecord, clock: clock, problems: problems, covers: covers, schedules: schedules, automations: automations) }

    /// Saves the placements that differ from devices.json, and the lock state.
    public func persistRuntimeState() async throws { try await parts.persistRuntimeState() }

    /// Saves a lock change just made; if it cannot be saved, takes it back (a lock that a restart
    /// would forget is no lock).
    /// - Returns: why it was taken back, or nil once it is saved.
    func persistLock(_ locked: Bool) async -> String? { await parts.persistLock(locked) }

    /// The kinds of control bound to a device.
    func kinds(boundTo device: String) -> [String] {
        (declaredKinds[device] ?? []) + readers.kinds(reading: device)
    }

    /// The configuration's kinds by the devices they are bound to (drive, choose from, or show), in declaration order.
    private static func declaredKinds(_ configuration: SwitchboardConfiguration) -> [String: [String]] {
        var kinds: [String: [String]] = [:]
        for control in configuration.controls {
            let devices = Set([control.device, control.stateDevice].compactMap { $0 } + control.devices)
            for device in devices { kinds[device, default: []].append(control.kind) }
        }
        // A cover announces its changes under its own id.
        for cover in configuration.covers { kinds[cover.id, default: []] += [cover.toggleKind, cover.stopKind] }
        return kinds
    }

    /// A device's value changed, whichever path changed it: every control bound to it reloads
    /// (a device shared by several controls and placements refreshes all of them), and its
    /// auto-off countdown ends when it is off (an interlock, a scene, another control, Swift code,
    /// its own state topic switched it off). Runs where the change happens: nothing here waits.
    private func deviceChanged(_ device: String) {
        if autoOff.isRunning(device), (try? hub.value(of: device)) == false {
            autoOff.cancel(device)
            // Here on the node's loop for another system's state message: the deadline's removal
            // waits for the flusher (a deadline left by a power cut switches off what is off).
            hub.updatePersistedLater { $0.autoOff[device] = nil }
        }
        for kind in kinds(boundTo: device) { center.push(kind: kind) }
    }

    /// Runs the node's services until ``stopServices()``, as a ``ServiceGroup`` in the order they
    /// depend on each other: the control center, the state file's flusher, the input watcher, the
    /// MQTT bridge, the auto-off schedule, the buttons with their announcers. A stop cancels them
    /// the other way round, each once the one after it has returned: nothing switches a device or
    /// publishes after the bridge has said `offline`, and the flusher writes last. One that ends
    /// by itself (a button whose line went away) leaves the others running.
    public func runServices() async {
        let center = self.center, hub = self.hub, log = self.log, autoOff = self.autoOff
        let valueChanges = hub.valueChanges.observe { [weak self] device in self?.deviceChanged(device) }
        defer {
            valueChanges.end()
            end.finish()
        }
        var services = [ServiceGroup.Entry("control center", center, stop: .cancellation, returnStopsGroup: false)]
        if let flusher = hub.flusher { services.append(ServiceGroup.Entry("state file flusher", flusher, stop: .cancellation, returnStopsGroup: false)) }
        // Each debounced change of an input reaches valueChanges, and so its controls.
        if let inputs = hub.inputWatcher { services.append(ServiceGroup.Entry("input watcher", inputs, stop: .cancellation, returnStopsGroup: false)) }
        if let bridge { services.append(ServiceGroup.Entry("MQTT bridge", bridge, stop: .cancellation, returnStopsGroup: false)) }
        services.append(ServiceGroup.Entry("auto-off", stop: .cancellation, returnStopsGroup: false) {
            await autoOff.run(
                switchOff: { id in
                    do {
                        try await hub.set(id, to: false)
                        try hub.updatePersisted { $0.autoOff[id] = nil }
                        log(.info, "auto-off: \(id) switched off")
                    } catch {
                        log(.error, "auto-off: \(id) could not be switched off: \(error)")
                    }
                },
                refresh: { [self] ids in
                    for kind in Set(ids.flatMap { self.kinds(boundTo: $0) }) { center.push(kind: kind) }
                }
            )
        })
        if !configuration.schedules.isEmpty {
            services.append(ServiceGroup.Entry("schedules", stop: .cancellation, returnStopsGroup: false) { [schedules] in await schedules.run() })
        }
        if !configuration.automations.isEmpty {
            let pushButtons = buttons.values.sorted { $0.settings.id < $1.settings.id }
            services.append(ServiceGroup.Entry("automations", stop: .cancellation, returnStopsGroup: false) { [automations] in
                await automations.run(following: center, buttons: pushButtons)
            })
        }
        if !covers.covers.isEmpty {
            let covers = self.covers
            services.append(ServiceGroup.Entry("covers", stop: .cancellation, returnStopsGroup: false) { await covers.run(log: log) })
        }
        for button in actionButtons.values.sorted(by: { $0.settings.id < $1.settings.id }) {
            let announcements = button.announcements.subscribe()
            let (blinks, blink) = AsyncStream<ActionButtonAnnouncement.Phase>.makeStream(bufferingPolicy: .bufferingNewest(4))
            if let led = button.settings.announce.lazy.compactMap({ announcer -> String? in
                if case .led(let id) = announcer { return id }
                return nil
            }).first {
                services.append(ServiceGroup.Entry("action button \(button.settings.id) LED", stop: .cancellation, returnStopsGroup: false) { await self.blink(led, blinks) })
            }
            services.append(ServiceGroup.Entry("action button \(button.settings.id) announcer", stop: .cancellation, returnStopsGroup: false) {
                for await announcement in announcements {
                    self.announce(announcement, from: button.settings)
                    blink.yield(announcement.phase)
                }
                blink.finish()
            })
            services.append(ServiceGroup.Entry("action button \(button.settings.id)", button, stop: .cancellation, returnStopsGroup: false))
        }
        for button in buttons.values.sorted(by: { $0.settings.id < $1.settings.id }) {
            let clicks = button.clicks.subscribe()
            services.append(ServiceGroup.Entry("button \(button.settings.id) clicks", stop: .cancellation, returnStopsGroup: false) {
                for await (click, outcome) in clicks {
                    log(.info, "button \(button.settings.id): \(click)\(outcome.map { ": \($0)" } ?? "")")
                    self.bridge?.publishClick(click, outcome: outcome, from: button.settings.id)
                }
            })
            services.append(ServiceGroup.Entry("button \(button.settings.id)", button, stop: .cancellation, returnStopsGroup: false))
        }
        let group = ServiceGroup(services, report: { line in log(.warning, line) })
        let requested = stopping.withLock { stopping -> Bool in
            stopping.services = group
            return stopping.requested
        }
        if requested { group.triggerGracefulShutdown() }
        do {
            try await group.run()
        } catch is CancellationError {
        } catch {
            log(.error, "the node's services stopped: \(error)")
        }
        // Its services hold this runtime: the group goes with them.
        stopping.withLock { $0.services = nil }
    }

    /// Tells the announcers a button has something to say: the log, MQTT, speech.
    func announce(_ announcement: ActionButtonAnnouncement, from button: ActionButtonSettings) {
        for announcer in button.announce {
            switch announcer {
            case .log:
                let reason = announcement.reason.map { " (\($0))" } ?? ""
                log(announcement.phase == .failed ? .warning : .info, "button \(button.id): \(announcement.phase.rawValue): \(announcement.text)\(reason)")
            case .mqtt: bridge?.publish(announcement, from: button.id)
            case .speech: speech.speak(announcement.text)
            case .led: break
            }
        }
    }

    /// Blinks an LED output for each announcement, then restores its level.
    private func blink(_ led: String, _ phases: AsyncStream<ActionButtonAnnouncement.Phase>) async {
        for await phase in phases {
            let before = (try? hub.value(of: led)) ?? false
            for (on, off) in LEDPattern.blinks(for: phase) {
                try? await hub.set(led, to: !before)
                try? await clock.sleep(for: on)
                try? await hub.set(led, to: before)
                try? await clock.sleep(for: off)
            }
        }
    }

    /// Releases the buttons' lines and the devices' lines, but for the output lines `next` (the
    /// reloaded configuration) drives with the same settings: those are returned, still requested.
    @discardableResult
    public func shutdown(handingOverTo next: SwitchboardConfiguration? = nil) -> LineHandover {
        for button in actionButtons.values { button.release() }
        for button in buttons.values { button.release() }
        return hub.shutdown(handingOverTo: next)
    }

    /// Ends ``runServices()`` (before it runs, too): its services stop, the last started first.
    public func stopServices() {
        stopping.withLock { stopping in
            stopping.requested = true
            return stopping.services
        }?.triggerGracefulShutdown()
    }

    /// Returns once ``runServices()`` has returned (after ``stopServices()``): no task of this
    /// configuration uses its devices, lines or connection any more. Only one caller may wait.
    public func servicesEnded() async {
        for await _ in ended {}
    }
}
