import ControlKitCore
import SwitchboardSupport
import SwitchboardConfiguration

/// Runs one control extension for the daemon, as iOS hosts a widget extension: starts its
/// process, lists its controls, serves them as the daemon's own through ``definitions()`` (each
/// render and perform a call to the process), answers its device calls through the node's
/// devices (only those devices.json allows it), and passes its reload requests on.
///
/// An extension that exits, hangs (a call unanswered for its timeout and a status check after
/// it), floods its output or writes lines that are not the line protocol is killed and started
/// again with backoff (1 s doubling to 1 min); meanwhile its controls are stale and
/// ``condition`` says why. Nothing it does reaches beyond its own controls.
public final class ExtensionHost: Sendable {
    struct State {
        var process: (any ExtensionRun)?
        var gallery: [ControlGalleryItem]?
        var condition = "starting"
        var nextCall = 1
        var pending: [Int: CheckedContinuation<ControlReply, any Error>] = [:]
        var previews: [String: ControlSnapshot] = [:]
        var stopped = false
        var firstListing: [CheckedContinuation<Void, Never>]? = []
        /// The placements whose push tokens the extension's handlers were last told, by kind:
        /// told again when it restarts.
        var pushTokens: [String: [ControlPlacement]] = [:]
        /// Actions it performs now for an authenticated caller (the local CLI): meanwhile its
        /// device calls may change what the lock guards, as that caller may.
        var authenticatedActs = 0
        /// How isolated its process runs, once started.
        var isolation: String?
    }

    public let settings: ExtensionSettings
    /// Where its runs are: child processes, or systemd units.
    public let hosting: ExtensionHosting
    private let devices: any ExtensionDevices
    private let clock: AnyClock
    private let log: Log
    private let backoff: Backoff
    /// Asks the daemon to reload this extension's controls of a kind (nil: all of them).
    private let reload: @Sendable (_ kinds: [String]) -> Void
    /// Tells the daemon the extension listed its controls (at every start).
    private let listed: @Sendable () -> Void
    // Invariant: each pending continuation is resumed exactly once, by its reply, its timeout or
    // the end of the process, whichever comes first.
    private let state = Locked(State())
    private let stops: AsyncStream<Void>
    private let stop: AsyncStream<Void>.Continuation

    /// Lines a second it was not asked for (events, device calls, replies to calls the daemon did
    /// not make or no longer waits for, anything else) beyond which an extension counts as
    /// flooding; replies to the daemon's own waiting calls never count. The second is the
    /// daemon's: lines count on until the daemon has read all the extension wrote, so an
    /// extension that writes faster than a slow board's daemon can handle its lines (fewer than
    /// this many a second) floods it all the same.
    static let floodLimit = 5000
    /// Device calls waiting for their answer beyond which an extension counts as flooding.
    static let deviceCallLimit = 256
    /// How long a run must last for the next failure to start the backoff afresh.
    static let healthyRun: Duration = .seconds(10)
    /// Lines that are not the line protocol beyond which an extension is restarted.
    static let garbageLimit = 50

    public init(
        settings: ExtensionSettings, devices: any ExtensionDevices, log: Log, clock: some Clock<Duration> = ContinuousClock(),
        backoff: Backoff = Backoff(initial: .seconds(1), maximum: .seconds(60)), hosting: ExtensionHosting = .process,
        reload: @escaping @Sendable ([String]) -> Void, listed: @escaping @Sendable () -> Void
    ) {
        self.settings = settings
        self.hosting = hosting
        self.devices = devices
        self.log = log
        self.clock = AnyClock(clock)
        self.backoff = backoff
        self.reload = reload
        self.listed = listed
        (stops, stop) = AsyncStream<Void>.makeStream()
    }

    /// How the extension is: "running", or why not and what happens next.
    public var condition: String { state.withLock { $0.condition } }

    /// How isolated its process runs ("own user nobody, …"; nil until it has started once).
    public var isolation: String? { state.withLock { $0.isolation } }

    /// Runs `body` (an `act` call) as an action for an authenticated caller when `authenticated`.
    func actingFor<T: Sendable>(authenticated: Bool, _ body: () async throws -> T) async throws -> T {
        guard authenticated else { return try await body() }
        state.withLock { $0.authenticatedActs += 1 }
        defer { state.withLock { $0.authenticatedActs -= 1 } }
        return try await body()
    }

    /// The kinds it listed (empty until it has).
    public var kinds: [String] { gallery.map(\.kind) }

    /// Its controls as it listed them (empty until it has).
    var gallery: [ControlGalleryItem] { state.withLock { $0.gallery ?? [] } }

    /// Tells the extension's push handler for `kind` its placements (their ids are the tokens),
    /// and keeps them to tell a restarted extension.
    func tellPushTokens(_ kind: String, _ placements: [ControlPlacement]) async {
        state.withLock { $0.pushTokens[kind] = placements }
        do {
            let reply = try await call(ControlCommand(.pushTokens, kind: kind, placements: placements), timeout: settings.timeout)
            if !reply.ok { throw Self.error(reply, kind: kind) }
        } catch {
            log(.warning, "extension \(settings.id): its push handler for \(kind) was not told the tokens (\(error)); it is told again when the extension restarts")
        }
    }

    func rememberPreview(_ snapshot: ControlSnapshot, _ key: String) { state.withLock { $0.previews[key] = snapshot } }
    func rememberedPreview(_ key: String) -> ControlSnapshot? { state.withLock { $0.previews[key] } }

    /// Waits until the first start has listed the controls or failed to.
    public func firstListing() async {
        await withCheckedContinuation { continuation in
            let waiting = state.withLock { state -> Bool in
                guard state.firstListing != nil else { return false }
                state.firstListing?.append(continuation)
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    /// Runs the extension, restarting it with backoff, until ``shutDown()`` (which its group's
    /// graceful shutdown calls) or the task's cancellation.
    public func run() async {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in self.stops {} }
                group.addTask { await self.supervise() }
                await group.next()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.shutDown()
        }
        finishFirstListing()
        state.withLock { $0.condition = "stopped" }
    }

    private func supervise() async {
        var backoff = self.backoff
        while !state.withLock({ $0.stopped }), !Task.isCancelled {
            let reason: String
            do {
                let process = try await hosting.start(settings)
                state.withLock { state in
                    state.process = process
                    state.isolation = process.isolation
                }
                if state.withLock({ $0.stopped }) { process.terminate() }
                reason = await serve(process, backoff: &backoff)
            } catch {
                reason = "could not start: \(error)"
            }
            state.withLock { $0.process = nil }
            finishFirstListing()
            if state.withLock({ $0.stopped }) { break }
            let delay = backoff.recordFailure()
            let condition = "\(reason); restarting in \(DurationText.format(delay))"
            state.withLock { $0.condition = condition }
            log(.error, "extension \(settings.id): \(condition)")
            // Its controls show stale until it is back.
            reload(kinds)
            guard (try? await clock.sleep(for: delay)) != nil else { break }
        }
    }

    /// Stops the extension (SIGTERM, then SIGKILL after 2 s) and ends ``run()``; once.
    public func shutDown() {
        let process = state.withLock { state -> (any ExtensionRun)? in
            defer { state.stopped = true }
            return state.stopped ? nil : state.process
        }
        process?.terminate()
        stop.finish()
    }

    // MARK: One run

    /// Serves one run of the process until it ends; returns how it ended.
    private func serve(_ process: any ExtensionRun, backoff: inout Backoff) async -> String {
        var killed: String?
        var ended = "ended"
        let began = clock.now
        let succeeded = Locked(false)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.logErrors(of: process) }
            group.addTask {
                do {
                    let reply = try await self.call(ControlCommand(.gallery), timeout: self.settings.timeout)
                    guard let gallery = reply.gallery else { throw ExtensionError(reply.error?.message ?? "it answered the gallery request without a gallery") }
                    self.state.withLock { state in
                        state.gallery = gallery
                        state.condition = "running"
                    }
                    succeeded.withLock { $0 = true }
                    self.log(.info, "extension \(self.settings.id): running (\(process.identity)), controls \(gallery.map(\.kind).joined(separator: ", "))")
                    self.listed()
                    self.reload(gallery.map(\.kind))
                    for (kind, placements) in self.state.withLock({ $0.pushTokens }).sorted(by: { $0.key < $1.key }) {
                        await self.tellPushTokens(kind, placements)
                    }
                } catch {
                    self.log(.error, "extension \(self.settings.id): did not list its controls: \(error)")
                    process.killNow()
                }
                self.finishFirstListing()
            }
            var window = clock.now, unasked = 0, garbage = 0, windowEmptied = process.output.timesEmptied
            let deviceCalls = Locked(0)
            for await read in process.output {
                let handled: LineHandling
                if case .line(let line) = read {
                    if line.isEmpty { continue }
                    handled = handle(line, from: process, deviceCalls: deviceCalls, in: &group)
                } else {
                    handled = .notProtocol("a line longer than 1 MiB")
                }
                if handled == .answer { continue }
                let now = clock.now
                // A new second begins only once the daemon caught up with the extension's output:
                // where the daemon handles fewer lines a second than the limit, a flood never fills
                // one second, but it keeps the output from ever running dry.
                let emptied = process.output.timesEmptied
                if window.duration(to: now) >= .seconds(1), emptied != windowEmptied { window = now; windowEmptied = emptied; unasked = 0 }
                unasked += 1
                if unasked > Self.floodLimit || handled == .tooManyDeviceCalls {
                    killed = handled == .tooManyDeviceCalls
                        ? "flooded the daemon with device calls (more than \(Self.deviceCallLimit) waiting)"
                        : "flooded its output (more than \(Self.floodLimit) lines in a second it was not asked for)"
                    process.killNow()
                    break
                }
                if case .notProtocol(let line) = handled {
                    garbage += 1
                    if garbage <= 3 { log(.warning, "extension \(settings.id): ignored a line that is not the line protocol: \(line.prefix(120))") }
                    if garbage >= Self.garbageLimit {
                        killed = "wrote \(garbage) lines that are not the line protocol"
                        process.killNow()
                        break
                    }
                }
            }
            // Its output ended: whatever it is doing, this run is over.
            process.killNow()
            ended = await process.exit()
            failPending("extension \"\(settings.id)\" \(killed ?? ended)")
            group.cancelAll()
        }
        // A run that listed its controls and then lasted a while starts the backoff afresh; one
        // that crashes soon after each start keeps backing off.
        if succeeded.withLock({ $0 }), began.duration(to: clock.now) >= Self.healthyRun { backoff.recordSuccess() }
        return killed.map { "was stopped: it \($0)" } ?? ended
    }

    /// What a line from the extension was.
    enum LineHandling: Equatable {
        /// A reply to one of the daemon's calls.
        case answer
        /// Something the extension sent of its own accord: a device call, an event.
        case unasked
        /// A device call beyond ``ExtensionHost/deviceCallLimit`` waiting.
        case tooManyDeviceCalls
        /// Not the line protocol (the line, to quote).
        case notProtocol(Substring)
    }

    /// Handles one line from the extension.
    private func handle(_ line: Substring, from process: any ExtensionRun, deviceCalls: Locked<Int>, in group: inout DiscardingTaskGroup) -> LineHandling {
        switch ControlLineProtocol.kind(of: line) {
        case .reply:
            guard let reply = ControlLineProtocol.decode(ControlReply.self, from: line), let call = reply.call else { return .notProtocol(line) }
            // A reply to a call the daemon never made (or one already answered or timed out)
            // was not asked for, and counts towards the flood limit like any other such line.
            guard let waiting = state.withLock({ $0.pending.removeValue(forKey: call) }) else { return .unasked }
            waiting.resume(returning: reply)
            return .answer
        case .deviceRequest:
            guard let request = ControlLineProtocol.decode(DeviceRequest.self, from: line) else { return .notProtocol(line) }
            let admitted = deviceCalls.withLock { count -> Bool in
                guard count < Self.deviceCallLimit else { return false }
                count += 1
                return true
            }
            guard admitted else { return .tooManyDeviceCalls }
            group.addTask {
                // Only its own kinds may be followed; anything else is a kind it made up.
                let kind = request.kind.flatMap { self.kinds.contains($0) ? $0 : nil }
                var devices = self.devices
                devices.authenticated = self.state.withLock { $0.authenticatedActs > 0 }
                let answer = await devices.answer(request, for: kind)
                deviceCalls.withLock { $0 -= 1 }
                if await !process.input.write(ControlLineProtocol.encodeLine(answer)) { process.killNow() }
            }
            return .unasked
        case .event:
            guard let event = ControlLineProtocol.decode(ControlLineProtocol.Event.self, from: line) else { return .notProtocol(line) }
            if event.event == "reload" {
                let own = kinds
                reload(event.kind.map { own.contains($0) ? [$0] : [] } ?? own)
            }
            return .unasked
        case .command, .deviceAnswer:
            return .notProtocol(line)
        }
    }

    private func logErrors(of process: any ExtensionRun) async {
        var logged = 0
        for await read in process.errors {
            guard case .line(let line) = read, !line.isEmpty else { continue }
            logged += 1
            if logged <= 50 { log(.warning, "extension \(settings.id): \(line.prefix(200))") }
            if logged == 50 { log(.warning, "extension \(settings.id): more on its standard error is not logged") }
        }
    }

    private func finishFirstListing() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.firstListing = nil }
            return state.firstListing ?? []
        }
        waiting.forEach { $0.resume() }
    }

    private func failPending(_ reason: String) {
        let pending = state.withLock { state in
            // No call is taken for this run from now on.
            state.process = nil
            state.condition = reason
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for continuation in pending { continuation.resume(throwing: ExtensionError(reason)) }
    }

    // MARK: Calls

    /// Sends a command and waits for its reply, at most `timeout`; a call that times out is
    /// followed by a status check, and an extension that answers neither is killed as hung.
    func call(_ command: ControlCommand, timeout: Duration, checkingLiveness: Bool = true) async throws -> ControlReply {
        var command = command
        let (process, number) = try state.withLock { state -> (any ExtensionRun, Int) in
            guard let process = state.process else {
                throw ExtensionError("extension \"\(settings.id)\" \(state.condition)")
            }
            defer { state.nextCall += 1 }
            return (process, state.nextCall)
        }
        command.call = number
        let line = ControlLineProtocol.encodeLine(command)
        let outcome: Result<ControlReply, any Error> = await withTaskGroup(of: Result<ControlReply, any Error>?.self) { group in
            group.addTask {
                do {
                    return .success(try await withCheckedThrowingContinuation { continuation in
                        let refusal = self.state.withLock { state -> String? in
                            guard state.process === process else { return state.condition }
                            state.pending[number] = continuation
                            return nil
                        }
                        if let refusal {
                            continuation.resume(throwing: ExtensionError("extension \"\(self.settings.id)\" \(refusal)"))
                        } else {
                            process.input.send(line)
                        }
                    })
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                guard (try? await self.clock.sleep(for: timeout)) != nil else { return nil }
                return .failure(ExtensionError("extension \"\(self.settings.id)\" did not answer within \(DurationText.format(timeout))", timedOut: true))
            }
            var result: Result<ControlReply, any Error>?
            while result == nil, let next = await group.next() {
                guard let next else { continue }
                result = next
                // The reply or the timeout won: the other one is resolved now.
                if case .failure = next, let waiting = self.state.withLock({ $0.pending.removeValue(forKey: number) }) {
                    waiting.resume(throwing: CancellationError())
                }
                group.cancelAll()
            }
            return result ?? .failure(CancellationError())
        }
        if case .failure(let error as ExtensionError) = outcome, error.timedOut, checkingLiveness {
            // A slow perform, or a hung process? A status check says which.
            if state.withLock({ $0.process === process }), (try? await call(ControlCommand(.status), timeout: .seconds(3), checkingLiveness: false)) == nil {
                log(.error, "extension \(settings.id): hung (no answer to a status check either); killing it")
                process.killNow()
            }
        }
        return try outcome.get()
    }
}

extension ExtensionHost: Service {}
