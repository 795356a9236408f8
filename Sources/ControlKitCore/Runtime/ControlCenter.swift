import SwitchboardSupport

/// The runtime that holds the registered controls, their placements and presentations, and
/// reloads and performs them. Mirrors WidgetKit's `ControlCenter`: `ControlCenter.shared` with
/// `reloadControls(ofKind:)`, `reloadAllControls()` and `currentControls()`.
///
/// Reloads happen on the seeds' three triggers: after an action's `perform()` returns, on request,
/// and on push (``push(kind:)``, called when outside state changes). Bursts coalesce per kind; a
/// provider that throws keeps the last good presentation, marked stale, and is retried with backoff.
///
/// Timed work (status expiry, retries, requested reloads) runs in ``run()``, the service a host
/// runs for the center's lifetime.
///
/// The center runs on an ``EventLoop``'s thread: the one it was given (in `switchboardd`, the
/// node's loop, where MQTT messages arrive), or else the process's loop for centers
/// (``defaultLoop``). Its action and render closures are nonisolated (or on the main actor): they
/// run on the executor of the task that asked, which is the loop for a task that prefers it (the
/// MQTT bridge's command lanes, HomeKit writes), except an action whose
/// ``ControlAction/mayBlock`` is true, which the center runs on the cooperative pool.
public actor ControlCenter {
    /// The center of this process.
    public static let shared = ControlCenter()

    /// The thread the center runs on.
    public nonisolated let loop: EventLoop

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    private static let defaultLoopStorage = Locked<EventLoop?>(nil)

    /// The loop of the centers made without one ("switchboard.controls"), started with the first of
    /// them and never stopped.
    public static var defaultLoop: EventLoop {
        defaultLoopStorage.withLock { loop in
            if let loop { return loop }
            do {
                let started = try EventLoop(name: "switchboard.controls")
                loop = started
                return started
            } catch {
                // A process that cannot make one pipe at the start has no descriptors left at all.
                fatalError("ControlKit: the control center's thread did not start: \(error). Raise the open-file limit (ulimit -n, LimitNOFILE= in the unit).")
            }
        }
    }

    /// One placed control and what the runtime knows of it.
    struct PlacedControl {
        var placement: ControlPlacement
        /// The last good render (or the preview, before the first good one).
        var snapshot: TemplateSnapshot?
        var stale = false
        /// Why it is stale: what its provider threw last.
        var staleReason: String?
        var needsConfiguration = false
        var statusUntil: AnyClock.Instant?
        /// The value the last action asked of a toggle: whose status shows until `statusUntil`.
        var statusRequested: Bool?
        /// The presentation last sent to observers.
        var presentation: ControlPresentation?
        /// Bumped whenever the placement's configuration changes, to drop renders of an old one.
        var generation = 0
    }

    /// Work for ``run()``.
    enum Job: Sendable {
        /// A requested reload of a kind, or of all.
        case reload(kind: String?)
        /// A pushed kind's reload (see ``pushesPending``).
        case pushed(kind: String)
        /// Sleep until then, and fire the timers that are due.
        case wake(at: AnyClock.Instant)
    }

    enum Timer: Hashable, Sendable {
        case statusExpired(id: String)
        case retry(kind: String)
    }

    let clock: AnyClock
    /// How long a status stays after an action.
    public let statusDuration: Duration
    let retryPolicy: Backoff

    var bundleName: String
    var definitions: [String: ControlDefinition] = [:]
    var definitionOrder: [String] = []
    var placed: [String: PlacedControl] = [:]
    /// The placements, kept with `placed`'s where they change (place, configure, remove), read
    /// without waiting for the center (``placementNow(_:)``).
    private nonisolated let placementsNow = Locked<[String: ControlPlacement]>([:])
    var placementOrder: [String] = []
    /// The placements of each kind, in placement order: what a reload of the kind renders.
    var placementsOfKind: [String: [String]] = [:]
    /// In a control extension: the push-handled controls its daemon placed, by kind.
    var relayedPushControls: [String: [ControlInfo]] = [:]
    /// Whether Switchboard is locked: auth-requiring actions refused, privacy-sensitive controls redacted.
    public private(set) var isLocked = false {
        didSet { lockedNow.withLock { $0 = isLocked } }
    }
    private nonisolated let lockedNow = Locked(false)
    /// ``isLocked``, read without waiting for the center (which may be performing): the lock state
    /// a command that arrives now is decided by.
    public nonisolated var isLockedNow: Bool { lockedNow.withLock { $0 } }

    var coalescer = ReloadCoalescer<String>()
    /// How many reloads have been asked of ``run()``.
    nonisolated let reloadRequestCount = Locked<UInt64>(0)
    /// The kinds pushed whose reload has not started yet: a further push of one is covered by that
    /// reload (it reads the state when it starts), so a storm of pushes asks one reload of
    /// ``run()`` at a time per kind, and wakes it once.
    nonisolated let pushesPending = Locked<Set<String>>([])
    var reloadWaiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    var retryBackoff: [String: Backoff] = [:]
    var retryScheduled: Set<String> = []
    var performQueues: [String: [CheckedContinuation<Void, Never>]] = [:]
    var timers = TimerSchedule<Timer>()

    let observers = Broadcast<ControlChange>()
    let reloadRequests = Broadcast<String?>()
    nonisolated let jobs: AsyncStream<Job>
    nonisolated let jobQueue: AsyncStream<Job>.Continuation

    /// Creates a center.
    /// - Parameters:
    ///   - clock: the clock for statuses and retries (a manual one in tests).
    ///   - bundleName: the display name of controls that set none.
    ///   - statusDuration: how long a status shows after an action.
    ///   - retry: the backoff between reloads of a control whose provider throws.
    ///   - loop: the thread the center runs on; by default ``defaultLoop``.
    public init(
        clock: some Clock<Duration> = ContinuousClock(),
        bundleName: String = "Switchboard",
        statusDuration: Duration = .seconds(3),
        retry: Backoff = Backoff(initial: .seconds(1), maximum: .seconds(300)),
        loop: EventLoop? = nil
    ) {
        self.loop = loop ?? Self.defaultLoop
        self.clock = AnyClock(clock)
        self.bundleName = bundleName
        self.statusDuration = statusDuration
        self.retryPolicy = retry
        (jobs, jobQueue) = AsyncStream<Job>.makeStream()
    }

    // MARK: Registration

    /// Registers a bundle's controls, in bundle order; its name becomes the default display name.
    public func register<Bundle: WidgetBundle>(_ bundle: Bundle.Type) async throws {
        let definitions = await MainActor.run { Bundle().controlDefinitions }
        try register(definitions, bundleName: Bundle.bundleDisplayName)
    }

    /// Registers control definitions after those already registered.
    /// - Parameter bundleName: if given, the display name of controls that set none.
    /// - Throws: ``ControlError`` `.invalidConfiguration` naming a kind registered twice.
    public func register(_ newDefinitions: [ControlDefinition], bundleName: String? = nil) throws {
        if let bundleName { self.bundleName = bundleName }
        for definition in newDefinitions {
            guard definitions[definition.kind] == nil else {
                throw ControlError(.invalidConfiguration, kind: definition.kind, detail: "registered twice; every control kind must be unique")
            }
            definitions[definition.kind] = definition
            definitionOrder.append(definition.kind)
        }
    }

    /// The registered definitions, in registration order.
    public var registeredDefinitions: [ControlDefinition] { definitionOrder.compactMap { definitions[$0] } }

    /// The registered definition of a kind.
    public func definition(ofKind kind: String) -> ControlDefinition? { definitions[kind] }

    func displayName(of kind: String) -> String { definitions[kind]?.displayName ?? bundleName }

    // MARK: Placements

    /// Places a control kind in a space and loads it.
    /// - Parameter id: the placement's identifier; by default the kind's last component and a number.
    /// - Returns: the placed control's presentation.
    /// - Throws: ``ControlError`` for an unknown kind, a taken identifier or an invalid configuration.
    @discardableResult
    public func place(
        kind: String, in space: ControlSpace, size: ControlSize? = nil,
        configuration: [String: String] = [:], id: String? = nil
    ) async throws -> ControlPresentation {
        let definition = try registeredDefinition(kind)
        let id = id ?? nextPlacementID(for: kind)
        guard placed[id] == nil else {
            throw ControlError(.duplicatePlacement, placement: id, detail: "choose another identifier or remove it first")
        }
        try await validate(configuration, for: definition)
        let placement = ControlPlacement(id: id, kind: kind, space: space, size: size, configuration: configuration)
        placed[id] = PlacedControl(placement: placement)
        placementsNow.withLock { $0[id] = placement }
        placementOrder.append(id)
        placementsOfKind[kind, default: []].append(id)
        // A provider that fails now (a device not reachable yet) is retried, as after a reload.
        if await refresh(id) == .failed { scheduleRetry(of: kind) }
        await tellPushHandler(ofKind: kind)
        return placed[id]?.presentation ?? compose(id)
    }

    /// Changes a placed control's configuration ("which light") and reloads it.
    @discardableResult
    public func configure(_ id: String, configuration: [String: String]) async throws -> ControlPresentation {
        guard let current = placed[id], let definition = definitions[current.placement.kind] else { throw unknownPlacement(id) }
        try await validate(configuration, for: definition)
        placed[id]?.placement.configuration = configuration
        placementsNow.withLock { $0[id]?.configuration = configuration }
        placed[id]?.generation += 1
        placed[id]?.snapshot = nil
        placed[id]?.needsConfiguration = false
        if await refresh(id) == .failed { scheduleRetry(of: current.placement.kind) }
        await tellPushHandler(ofKind: current.placement.kind)
        return placed[id]?.presentation ?? compose(id)
    }

    /// Removes a placed control.
    public func remove(_ id: String) async throws {
        guard let removed = placed.removeValue(forKey: id) else { throw unknownPlacement(id) }
        placementsNow.withLock { _ = $0.removeValue(forKey: id) }
        placementOrder.removeAll { $0 == id }
        placementsOfKind[removed.placement.kind]?.removeAll { $0 == id }
        observers.yield(.removed(id: id))
        await tellPushHandler(ofKind: removed.placement.kind)
    }

    /// One placement, if it exists.
    public func placement(_ id: String) -> ControlPlacement? { placed[id]?.placement }

    /// The placements, in the order they were placed.
    public var placements: [ControlPlacement] { placementOrder.compactMap { placed[$0]?.placement } }

    /// Every placed control's presentation, in placement order.
    public var presentations: [ControlPresentation] { placementOrder.map { placed[$0]?.presentation ?? compose($0) } }

    /// One placed control's presentation.
    public func presentation(of id: String) throws -> ControlPresentation {
        guard placed[id] != nil else { throw unknownPlacement(id) }
        return placed[id]?.presentation ?? compose(id)
    }

    /// The placed controls. Mirrors `ControlCenter.currentControls()`.
    public func currentControls() async throws -> [ControlInfo] {
        placementOrder.compactMap(info)
    }

    /// Reloads one placed control, as a push to its token does; false if nothing is placed as `id`.
    @discardableResult
    public func reload(placement id: String) async -> Bool {
        guard let kind = placed[id]?.placement.kind else { return false }
        if await refresh(id) == .failed { scheduleRetry(of: kind) }
        return true
    }

    private func info(_ id: String) -> ControlInfo? {
        guard let control = placed[id] else { return nil }
        let pushes = definitions[control.placement.kind]?.pushHandler != nil
        return ControlInfo(kind: control.placement.kind, placement: control.placement,
                           pushInfo: pushes ? ControlPushInfo(placement: id) : nil, configuration: control.snapshot?.configurationIntent)
    }

    /// Tells the push handler that `kind`'s configuration names, if any, about every placed control
    /// that names the same handler (and, in a control extension, every one its daemon placed).
    private func tellPushHandler(ofKind kind: String) async {
        guard let handler = definitions[kind]?.pushHandler else { return }
        var controls = placementOrder.filter { placed[$0].flatMap { definitions[$0.placement.kind]?.pushHandler } == handler }.compactMap(info)
        for kind in definitionOrder where definitions[kind]?.pushHandler == handler {
            controls += relayedPushControls[kind] ?? []
        }
        await handler.tell(controls)
    }

    /// A control extension's side of a relayed push handler: its daemon placed these controls of
    /// `kind` (all of them), so the kind's push handler is told them, with its other controls'.
    public func relayPushTokens(ofKind kind: String, placements: [ControlPlacement]) async throws {
        let definition = try registeredDefinition(kind)
        var controls: [ControlInfo] = []
        for placement in placements {
            // The preview render resolves the configuration intent without reading any device.
            let intent = (try? await definition.render(.preview, configuration: placement.configuration))?.configurationIntent
            controls.append(ControlInfo(kind: kind, placement: placement, pushInfo: ControlPushInfo(placement: placement.id), configuration: intent))
        }
        relayedPushControls[kind] = controls
        await tellPushHandler(ofKind: kind)
    }

    /// The configuration parameters of a kind, with their choices ("which light").
    public func parameters(ofKind kind: String) async throws -> [ControlParameter] {
        try await registeredDefinition(kind).parameters()
    }

    /// The choices of a kind's configuration parameter that a find selects ("lights in the kitchen").
    public func find(ofKind kind: String, _ find: EntityFind) async throws -> ControlParameter {
        try await registeredDefinition(kind).find(find)
    }

    /// The definition of a registered kind, or the error naming the registered ones.
    private func registeredDefinition(_ kind: String) throws -> ControlDefinition {
        guard let definition = definitions[kind] else {
            throw ControlError(.unknownKind, kind: kind, detail: "registered kinds: \(definitionOrder.joined(separator: ", "))")
        }
        return definition
    }

    private func nextPlacementID(for kind: String) -> String {
        let base = kind.split(separator: ".").last.map(String.init) ?? kind
        var number = 1
        while placed["\(base)-\(number)"] != nil { number += 1 }
        return "\(base)-\(number)"
    }

    /// Checks a configuration against a kind's parameters without keeping anything.
    private func validate(_ configuration: [String: String], for definition: ControlDefinition) async throws {
        guard !configuration.isEmpty else { return }
        guard definition.isConfigurable else {
            throw ControlError(.invalidConfiguration, kind: definition.kind, detail: "this control has no configuration parameters")
        }
        let parameters = await definition.parameters()
        for (name, value) in configuration.sorted(by: { $0.key < $1.key }) {
            guard let parameter = parameters.first(where: { $0.name == name }) else {
                throw ControlError(.invalidConfiguration, kind: definition.kind, detail: "\"\(name)\" is not a parameter (parameters: \(parameters.map(\.name).joined(separator: ", ")))")
            }
            if !parameter.options.isEmpty, !parameter.options.contains(where: { $0.id == value }) {
                throw ControlError(.invalidConfiguration, kind: definition.kind, detail: "\(name): \"\(value)\" is not one of \(parameter.options.map(\.id).joined(separator: ", "))")
            }
        }
    }

    func unknownPlacement(_ id: String) -> ControlError {
        ControlError(.unknownPlacement, placement: id, detail: "placed controls: \(placementOrder.isEmpty ? "none" : placementOrder.joined(separator: ", "))")
    }

    /// Whether a placed control's action needs Switchboard unlocked (or an authenticated caller).
    public func requiresAuthentication(_ id: String) -> Bool {
        placed[id]?.snapshot?.action.authenticationPolicy.requiresAuthentication ?? false
    }

    /// Whether a placed control of `kind` needs Switchboard unlocked (or an authenticated caller)
    /// to act.
    public func requiresAuthentication(kind: String) -> Bool {
        (placementsOfKind[kind] ?? []).contains { requiresAuthentication($0) }
    }

    // MARK: Lock

    /// Locks or unlocks Switchboard, and re-renders every control that shows it.
    public func setLocked(_ locked: Bool) {
        guard locked != isLocked else { return }
        isLocked = locked
        observers.yield(.locked(locked))
        for id in placementOrder { publish(id) }
    }

    // MARK: Observation

    /// Every change from now on: presentations, removals, lock changes.
    public nonisolated func changes() -> ControlChanges { ControlChanges(stream: observers.subscribe()) }

    /// Calls `observer` with every change from now on, where the change happens (on the center's
    /// executor, in order), until the observation is ended. `observer` must not block.
    public nonisolated func observeChanges(_ observer: @escaping @Sendable (ControlChange) -> Void) -> BroadcastObservation {
        observers.observe(observer)
    }

    /// A placement as it is now, read without waiting for the center (which may be performing).
    public nonisolated func placementNow(_ id: String) -> ControlPlacement? { placementsNow.withLock { $0[id] } }

    /// Recomputes a placed control's presentation and tells observers if it changed.
    func publish(_ id: String) {
        guard placed[id] != nil else { return }
        let presentation = compose(id)
        guard placed[id]?.presentation != presentation else { return }
        placed[id]?.presentation = presentation
        observers.yield(.presentation(presentation))
    }

    /// What a placed control shows now.
    func compose(_ id: String) -> ControlPresentation {
        guard let control = placed[id] else { preconditionFailure("compose(\(id)) for a control that is not placed") }
        let name = displayName(of: control.placement.kind)
        if control.needsConfiguration {
            return PresentationRules.unconfiguredPresentation(
                placement: control.placement, displayName: name,
                template: control.snapshot?.template, symbol: control.snapshot?.currentLabel.symbol
            )
        }
        guard let snapshot = control.snapshot else {
            var presentation = PresentationRules.unconfiguredPresentation(placement: control.placement, displayName: name, template: nil, symbol: nil)
            presentation.needsConfiguration = false
            presentation.stale = true
            return presentation
        }
        let showsStatus = control.statusUntil.map { clock.now < $0 } ?? false
        return PresentationRules.presentation(
            of: snapshot, placement: control.placement, displayName: name,
            isLocked: isLocked, showsStatus: showsStatus, requested: control.statusRequested, stale: control.stale,
            ownDisplayName: definitions[control.placement.kind]?.hintName
        )
    }

    // MARK: Service

    /// Runs requested reloads and timed work (status expiry, retries) until cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await job in jobs {
                switch job {
                case .reload(let kind):
                    group.addTask { await self.reload(kind: kind) }
                case .pushed(let kind):
                    group.addTask { await self.reloadPushed(kind) }
                case .wake(let deadline):
                    let clock = self.clock
                    group.addTask {
                        do { try await clock.sleep(until: deadline) } catch { return }
                        await self.fireDueTimers()
                    }
                }
            }
            group.cancelAll()
        }
    }

    func schedule(_ timer: Timer, at deadline: AnyClock.Instant) {
        if let wake = timers.set(timer, at: deadline) { jobQueue.yield(.wake(at: wake)) }
    }

    private func fireDueTimers() async {
        let (due, wake) = timers.takeDue(at: clock.now)
        if let wake { jobQueue.yield(.wake(at: wake)) }
        for timer in due {
            switch timer {
            case .statusExpired(let id):
                publish(id)
            case .retry(let kind):
                retryScheduled.remove(kind)
                await reload(kind: kind)
            }
        }
    }
}

/// Stops when cancelled: a group stops it with ``ServiceGroup/Entry/Stop/cancellation``.
extension ControlCenter: Service {}
