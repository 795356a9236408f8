import CMosquitto
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A connection to an MQTT broker through libmosquitto, served by an ``EventLoop``: a thread that
/// sleeps in `poll(2)` on the connection's socket, and runs the jobs of the actors that use the loop
/// as their executor between its sleeps. Each packet from the broker wakes it once, it reads and
/// handles what came, and sleeps again. Publishing writes to the socket from the caller's thread at
/// once (libmosquitto sends what fits; the loop sends the rest when the socket takes it). Keepalive
/// housekeeping runs at half the keepalive interval, as the loop's poll timeout: an idle connection
/// wakes once per half keepalive, and nothing polls.
///
/// Incoming messages and connection events are `AsyncSequence`s; a ``MessageHandler`` may take
/// messages where they arrive instead. Subscriptions are renewed after every reconnect;
/// reconnects follow the configured backoff (capped, exponential, with jitter).
public final class MQTTConnection: EventLoopSource, @unchecked Sendable {
    // Invariant: `handle` and every `var` below are touched only under `lock`. The loop's thread
    // holds it while it calls libmosquitto's loop functions, so the callbacks, which run
    // inside those calls, hold it too; they only record what happened, and what they recorded is
    // delivered once the lock is released (a reader may publish in turn).
    private let lock = ThreadLock()
    /// Messages published while another thread held the connection, in the order they came.
    private let outbox = Locked<[MQTTMessage]>([])
    private var handle: OpaquePointer!
    private let configuration: MQTTClientConfiguration
    private var backoff: Backoff
    private var subscriptions: [(filter: String, qos: Int32)] = []
    /// The topic of each QoS 1 publish the broker has not acknowledged yet, by message id: to
    /// name the topic of one it refuses.
    private var unacknowledged: [Int32: String] = [:]
    /// Why the broker ended the connection, when it said so (MQTT 5).
    private var serverDisconnect: String?
    /// Whether the broker accepted this connection attempt (its CONNACK came).
    private var accepted = false
    private var isConnected = false
    /// Whether libmosquitto has a socket to serve (connecting or connected).
    private var attached = false
    private var stopped = false
    private var started = false
    /// When the next keepalive housekeeping is due, while attached.
    private var housekeepingAt: ContinuousClock.Instant?
    /// The wait for the next attempt while the broker cannot be reached, on the configuration's
    /// clock; whether it is over; and whether that attempt is a first connect.
    private var retryWait: Task<Void, Never>?
    private var retryDue = false
    private var retryFirst = true
    /// What the callbacks recorded during a loop call, delivered after it.
    private var received: [MQTTMessage] = []
    private var happened: [MQTTConnectionEvent] = []
    /// Whether the loop tried the first connect.
    private var attemptedFirst = false
    /// The goodbye of ``stop(saying:within:)`` while it waits: its message id, and what ends the
    /// wait (its acknowledgement, or the connection's loss).
    private var goodbye: (mid: Int32, settled: AsyncStream<Bool>.Continuation)?
    /// The loop that serves the connection: to stop, or to watch for writability, it is woken.
    public let loop: EventLoop
    /// Whether the connection made its loop (and stops it with itself).
    private let ownsLoop: Bool

    /// Takes a message on the connection's thread as it arrives: true if it was handled, false
    /// to pass it on to ``messages``. It must not block: the connection reads nothing meanwhile.
    public typealias MessageHandler = @Sendable (MQTTMessage) -> Bool
    private let messageHandler = LockedCallback<MessageHandler>()

    /// The streams messages and events go to: one reader's at a time (see ``renewStreams()``).
    private struct Streams {
        var messages: AsyncStream<MQTTMessage>
        var messageContinuation: AsyncStream<MQTTMessage>.Continuation
        var events: AsyncStream<MQTTConnectionEvent>
        var eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation
        /// Messages that arrived after ``renewStreams()`` and before the next handler was set,
        /// held for that handler (nil: none is awaited).
        var held: [MQTTMessage]?

        init() {
            (messages, messageContinuation) = AsyncStream<MQTTMessage>.makeStream(bufferingPolicy: .unbounded)
            (events, eventContinuation) = AsyncStream<MQTTConnectionEvent>.makeStream(bufferingPolicy: .unbounded)
        }
    }

    private let streams = Locked(Streams())
    /// Messages on the subscribed topics (those a ``MessageHandler`` did not take).
    public var messages: AsyncStream<MQTTMessage> { streams.withLock { $0.messages } }
    /// Connection events.
    public var events: AsyncStream<MQTTConnectionEvent> { streams.withLock { $0.events } }
    private var messageContinuation: AsyncStream<MQTTMessage>.Continuation { streams.withLock { $0.messageContinuation } }
    private var eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation { streams.withLock { $0.eventContinuation } }

    /// Creates the client; nothing connects until ``start()``.
    /// - Parameter loop: the loop to serve the connection on; without one, the connection starts
    ///   its own and stops it with itself.
    /// - Throws: ``MQTTError`` `.configuration` for bad options or unreadable TLS files, or
    ///   `.failed` when no pipe can be made for its loop.
    public init(_ configuration: MQTTClientConfiguration, loop: EventLoop? = nil) throws {
        self.configuration = configuration
        backoff = configuration.reconnect
        if let loop {
            self.loop = loop
            ownsLoop = false
        } else {
            do {
                self.loop = try EventLoop(name: "switchboard-mqtt")
            } catch {
                throw MQTTError(.failed, call: "pipe", errno: error.errno, detail: "no pipe for the MQTT connection's thread: \(error.errno.message); raise the open-file limit")
            }
            ownsLoop = true
        }
        let handle = try Libmosquitto.new(clientID: configuration.clientID, cleanSession: configuration.cleanSession,
                                          context: Unmanaged.passUnretained(self).toOpaque())
        self.handle = handle
        do {
            try Libmosquitto.setProtocolVersion(handle, v5: configuration.protocolV5)
            if configuration.protocolV5 {
                try Libmosquitto.setConnectProperties(
                    handle, sessionExpiry: configuration.cleanSession ? 0 : UInt32.max,
                    maximumPacketSize: configuration.maximumPacketSize.map { UInt32(clamping: $0) }
                )
            }
            try Libmosquitto.disableNagle(handle)
            if let username = configuration.username {
                try Libmosquitto.setCredentials(handle, username: username, password: configuration.password)
            }
            if let ca = configuration.tlsCAFile {
                try Libmosquitto.setTLS(handle, caFile: ca, certificateFile: configuration.tlsCertificateFile, keyFile: configuration.tlsKeyFile)
            }
            if let will = configuration.will {
                try Libmosquitto.setWill(handle, topic: will.topic, payload: will.payload, qos: Int32(will.qos), retain: will.retain)
            }
        } catch {
            // deinit runs for a throwing initialiser of a fully initialised object: it destroys
            // the handle, exactly once.
            throw error
        }
        Libmosquitto.setCallbacks(handle, connect: onConnect, disconnect: onDisconnect, message: onMessage, publish: onPublish)
    }

    deinit {
        // The loop holds only a weak reference while it sleeps, so it is not in a loop call now;
        // woken, it finds the connection gone and forgets it.
        if ownsLoop { loop.stop() } else { loop.wake() }
        retryWait?.cancel()
        if let handle { Libmosquitto.destroy(handle) }
        messageContinuation.finish()
        eventContinuation.finish()
    }

    /// Starts connecting on the connection's loop; if the broker cannot be reached, retries
    /// with backoff.
    public func start() {
        let first = withConnection { () -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        loop.serve(self)
    }

    /// Disconnects (the broker does not publish the will) and stops reconnecting.
    public func stop() {
        end(disconnecting: true)
    }

    /// Publishes `goodbye` (QoS 1: the node's last word, its will's text), waits until the broker
    /// acknowledged it, then disconnects and stops reconnecting as ``stop()`` does.
    ///
    /// A goodbye published and followed by a DISCONNECT at once can be lost: libmosquitto keeps
    /// at most 20 QoS 1 messages in flight and queues the rest, and a DISCONNECT does not wait for
    /// the queue (after a reconnect, when the node republishes its state, the window is full). So
    /// the loop goes on serving the connection until the broker acknowledged the goodbye. If it
    /// did not within `limit` (on the configuration's clock), or the connection is lost meanwhile,
    /// the socket is closed without a DISCONNECT: the broker then publishes the will, the same
    /// word. While disconnected nothing is published; the broker has the will already.
    public func stop(saying goodbye: MQTTMessage, within limit: Duration) async {
        let (settled, continuation) = AsyncStream<Bool>.makeStream()
        let waiting = withConnection { () -> Bool in
            guard !stopped, isConnected else { return false }
            _ = flushOutbox()
            guard let mid = try? Libmosquitto.publish(handle, topic: goodbye.topic, payload: goodbye.payload, qos: 1, retain: goodbye.retain) else { return false }
            self.goodbye = (mid, continuation)
            return true
        }
        guard waiting else {
            stop()
            return
        }
        loop.wake()
        let clock = configuration.clock
        let acknowledged = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await settled.first { _ in true } ?? false }
            group.addTask {
                try? await clock.sleep(for: limit)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        withConnection { self.goodbye = nil }
        // Unconfirmed, the connection ends without a DISCONNECT, so that the will says it.
        end(disconnecting: acknowledged)
    }

    /// Stops for good: sends what was published before, then ends the connection with a
    /// DISCONNECT (the broker keeps the will to itself) or, not `disconnecting`, by shutting the
    /// socket (the broker publishes the will); lets the loop go (or wakes it to find the
    /// connection stopped) and ends the streams. A second call finds nothing to end.
    private func end(disconnecting: Bool) {
        withConnection {
            retryWait?.cancel()
            // What was published before stopping goes out first.
            _ = flushOutbox()
            stopped = true
            if isConnected {
                if disconnecting {
                    Libmosquitto.disconnect(handle)
                    try? Libmosquitto.write(handle)
                } else if case let socket = Libmosquitto.socket(handle), socket >= 0 {
                    try? SystemCall.shutdown(socket)
                }
            }
            isConnected = false
        }
        if ownsLoop { loop.stop() } else { loop.wake() }
        messageContinuation.finish()
        eventContinuation.finish()
    }

    /// Publishes a message, writing it to the socket now. While disconnected, QoS 1 messages wait
    /// in libmosquitto for the next connection; QoS 0 messages are dropped. Never waits for the
    /// connection's thread: while it reads, the message waits in the outbox, and it sends it.
    public func publish(_ message: MQTTMessage) {
        outbox.withLock { $0.append(message) }
        sendOutbox()
    }

    /// Sends what waits in the outbox, unless another thread holds the connection: every holder
    /// sends it once it lets go (``withConnection(_:)``), so nothing is left behind.
    private func sendOutbox() {
        while outbox.withLock({ !$0.isEmpty }) {
            guard let wake = lock.withLockIfAvailable({ flushOutbox() }) else { return }
            // What did not fit in the socket goes out once it drains: the thread watches for that.
            if wake { loop.wake() }
        }
    }

    /// Hands the outbox to libmosquitto (under the lock); true when bytes wait for the socket.
    private func flushOutbox() -> Bool {
        let messages = outbox.withLock { outbox in
            defer { outbox = [] }
            return outbox
        }
        guard !stopped else { return false }
        for message in messages {
            do {
                let mid = try Libmosquitto.publish(handle, topic: message.topic, payload: message.payload, qos: Int32(message.qos), retain: message.retain)
                if message.qos > 0 {
                    // Bounded: libmosquitto holds at most what it has queued; a broker that never
                    // acknowledges costs names, not memory.
                    if unacknowledged.count >= 4096 { unacknowledged.removeAll() }
                    unacknowledged[mid] = message.topic
                }
            } catch {
                // Not connected: the state is republished after the next connect.
            }
        }
        return Libmosquitto.wantsWrite(handle)
    }

    /// Runs `body` holding the connection, then sends what was published meanwhile.
    private func withConnection<Result>(_ body: () throws -> Result) rethrows -> Result {
        defer { sendOutbox() }
        return try lock.withLock { try body() }
    }

    /// Subscribes now and after every reconnect (once per filter).
    public func subscribe(_ filter: String, qos: Int = 1) {
        withConnection {
            guard !subscriptions.contains(where: { $0.filter == filter }) else { return }
            subscriptions.append((filter, Int32(qos)))
            if isConnected { try? Libmosquitto.subscribe(handle, filter: filter, qos: Int32(qos)) }
        }
        loop.wake()
    }

    /// Subscribes to `filters` again if connected, so that the broker sends what it keeps retained
    /// on them once more (a new reader, such as the next configuration's, that has seen none of it).
    public func resubscribe(_ filters: [String], qos: Int = 1) {
        withConnection {
            guard isConnected else { return }
            for filter in filters where subscriptions.contains(where: { $0.filter == filter }) {
                try? Libmosquitto.subscribe(handle, filter: filter, qos: Int32(qos))
            }
        }
        loop.wake()
    }

    /// Makes the subscriptions exactly `filters`: subscribes to the new ones and unsubscribes
    /// from those no longer wanted, now and after every reconnect.
    public func setSubscriptions(_ filters: [String], qos: Int = 1) {
        for filter in filters { subscribe(filter, qos: qos) }
        withConnection {
            let dropped = subscriptions.filter { !filters.contains($0.filter) }
            subscriptions.removeAll { !filters.contains($0.filter) }
            guard isConnected, !dropped.isEmpty else { return }
            for subscription in dropped { try? Libmosquitto.unsubscribe(handle, filter: subscription.filter) }
        }
        loop.wake()
    }

    /// Ends the current ``messages`` and ``events`` streams and starts new ones, for a new reader
    /// taking the connection over: events from now on go to the new stream. The message handler,
    /// if any, is removed, and the messages that arrive from now on are held for the next one
    /// (``setMessageHandler(_:)``), which takes them first, in order, before any newer one: a
    /// message that came during the hand-over is never handled after one that came later.
    /// (At most ``maximumHeldMessages``; what comes beyond is dropped. The next reader
    /// subscribes again, and the broker sends what it keeps retained again then.)
    public func renewStreams() {
        messageHandler.set(nil)
        let old = streams.withLock { streams in
            defer {
                streams = Streams()
                streams.held = []
            }
            return streams
        }
        old.messageContinuation.finish()
        old.eventContinuation.finish()
    }

    /// How many messages ``renewStreams()`` holds for the next handler at most.
    public static let maximumHeldMessages = 65_536

    /// Sets (or removes, with nil) the handler that takes messages on the connection's thread.
    /// It is set there, between two deliveries: a handler set after ``renewStreams()`` is first
    /// given the messages held since, in order, then each new one. What it declines (and, with
    /// nil, what was held) goes to ``messages``.
    public func setMessageHandler(_ handler: MessageHandler?) {
        loop.execute { [self] in
            let held = streams.withLock { streams -> [MQTTMessage] in
                defer { streams.held = nil }
                return streams.held ?? []
            }
            messageHandler.set(handler)
            let continuation = messageContinuation
            for message in held where handler?(message) != true { continuation.yield(message) }
        }
    }

    /// Whether ``start()`` was called.
    public var isStarted: Bool { withConnection { started } }

    /// The libmosquitto this build uses: "libmosquitto 2.0.21".
    public static var libraryVersion: String { "libmosquitto \(Libmosquitto.version)" }

    /// See ``MQTTClientConfiguration/maximumPayloadSize``.
    fileprivate var maximumPayloadSize: Int? { configuration.maximumPayloadSize }

    /// Whether the connection is up now.
    public var connected: Bool { withConnection { isConnected } }

    // MARK: The loop's source (on the loop's thread)

    /// What to wait for next (nil once stopped), after delivering what happened.
    public func nextWait() -> EventLoop.Wait? {
        defer { deliver() }
        return withConnection {
            guard !stopped else { return nil }
            if !attemptedFirst {
                attemptedFirst = true
                attempt(first: true)
            }
            guard attached else { return Wait(socket: -1, writable: false, deadline: nil) }
            let socket = Libmosquitto.socket(handle)
            guard socket >= 0 else {
                // Closed by libmosquitto during a publish from another thread.
                lost(serverDisconnect ?? "the broker closed the connection", first: false)
                return Wait(socket: -1, writable: false, deadline: nil)
            }
            return Wait(socket: socket, writable: Libmosquitto.wantsWrite(handle), deadline: housekeepingAt)
        }
    }

    /// Serves what `poll` reported.
    public func serviceReady(_ ready: EventLoop.Ready) {
        withConnection { serviceReadyLocked(ready) }
    }

    private func serviceReadyLocked(_ ready: EventLoop.Ready) {
        guard !stopped else { return }
        let now = ContinuousClock.now
        if attached {
            if ready.readable { service { try Libmosquitto.read($0) } }
            if attached, ready.writable { service { try Libmosquitto.write($0) } }
            if attached, let due = housekeepingAt, due <= now {
                housekeepingAt = now + housekeepingInterval
                service { try Libmosquitto.misc($0) }
            }
        } else if retryDue {
            retryDue = false
            attempt(first: retryFirst)
        }
    }

    /// Hands what the callbacks recorded to the handler and the streams (not under the lock).
    private func deliver() {
        let (messages, events) = withConnection {
            defer { received = []; happened = [] }
            return (received, happened)
        }
        if !events.isEmpty {
            let continuation = eventContinuation
            for event in events { continuation.yield(event) }
        }
        guard !messages.isEmpty else { return }
        let handler = messageHandler.callback
        if handler == nil, hold(messages) { return }
        let continuation = messageContinuation
        for message in messages where handler?(message) != true { continuation.yield(message) }
    }

    /// Holds `messages` for the handler a hand-over awaits; false when none is awaited.
    private func hold(_ messages: [MQTTMessage]) -> Bool {
        streams.withLock { streams in
            guard let count = streams.held?.count else { return false }
            streams.held?.append(contentsOf: messages.prefix(max(0, Self.maximumHeldMessages - count)))
            return true
        }
    }

    /// The reconnect delay is over: the thread tries again.
    private func retryIsDue() {
        withConnection { retryDue = true }
        loop.wake()
    }

    private typealias Wait = EventLoop.Wait

    private var housekeepingInterval: Duration { .milliseconds(max(1000, configuration.keepalive * 500)) }

    // MARK: Connection (under the lock, on the connection's thread)

    private func attempt(first: Bool) {
        guard !stopped else { return }
        serverDisconnect = nil
        accepted = false
        do {
            if first {
                try Libmosquitto.connect(handle, host: configuration.host, port: configuration.port, keepalive: configuration.keepalive)
            } else {
                try Libmosquitto.reconnect(handle)
            }
            guard Libmosquitto.socket(handle) >= 0 else {
                throw MQTTError(.connection, call: "mosquitto_socket", detail: "no socket after connecting")
            }
            attached = true
            housekeepingAt = .now + housekeepingInterval
        } catch {
            lost(reason(for: error), first: first)
        }
    }

    /// Runs one loop step; a failure means the connection is gone.
    private func service(_ step: (OpaquePointer) throws -> Void) {
        do {
            try step(handle)
            // Under MQTT 5 a broker may end the connection with a DISCONNECT ("Session taken
            // over"): libmosquitto closes its socket and its loop calls report success from then
            // on, so a closed socket is the loss.
            guard Libmosquitto.socket(handle) >= 0 else {
                lost(serverDisconnect ?? "the broker closed the connection", first: false)
                return
            }
        } catch {
            lost(reason(for: error), first: false)
        }
    }

    /// What a failed libmosquitto call says, and, for a TLS connection that failed before the
    /// broker accepted it, what to check: libmosquitto reports a handshake that fails in its loop
    /// (a broker certificate this node's CA did not sign, when the handshake outlasted the
    /// connect) as EPROTO, not as a TLS error, and so it reports a broker that requires client
    /// certificates dropping the connection during or right after the handshake (or as a lost
    /// connection).
    private func reason(for error: any Error) -> String {
        let reason = String(describing: error)
        guard configuration.tlsCAFile != nil, !accepted, let error = error as? MQTTError,
              error.errno == .protocolError || error.mosquittoCode == MOSQ_ERR_CONN_LOST.rawValue
        else { return reason }
        return reason + "; the TLS handshake failed or the broker closed the TLS connection before accepting this node: " + Libmosquitto.tlsChecklist
    }

    private func lost(_ reason: String, first: Bool) {
        goodbye?.settled.yield(false)
        attached = false
        housekeepingAt = nil
        isConnected = false
        guard !stopped else { return }
        let delay = backoff.recordFailure()
        happened.append(.disconnected(reason: reason, retryIn: delay))
        retryFirst = first
        // The delay runs on the configuration's clock; when it is over the thread is woken to
        // try again (a C thread cannot wait on a Swift clock itself).
        let clock = configuration.clock
        retryWait?.cancel()
        retryWait = Task { [weak self] in
            guard (try? await clock.sleep(for: delay)) != nil else { return }
            self?.retryIsDue()
        }
    }

    // MARK: Callbacks (under the lock, inside loop calls)

    fileprivate func didConnect(_ code: Int32) {
        guard code == 0 else {
            // MQTT 5 reason codes (135 "Not authorized") are not MQTT 3.1.1 CONNACK codes.
            happened.append(.refused(configuration.protocolV5 ? Libmosquitto.reasonString(code) : Libmosquitto.connackReason(code)))
            return
        }
        isConnected = true
        accepted = true
        backoff.recordSuccess()
        for subscription in subscriptions {
            try? Libmosquitto.subscribe(handle, filter: subscription.filter, qos: subscription.qos)
        }
        happened.append(.connected)
    }

    /// The connection ended, inside a loop call: under MQTT 5 the reason code of the broker's
    /// DISCONNECT, if it sent one, says why (``service(_:)`` handles the loss).
    fileprivate func didDisconnect(_ code: Int32) {
        isConnected = false
        serverDisconnect = configuration.protocolV5 && code >= 0x80 ? "the broker closed the connection: \(Libmosquitto.reasonString(code))" : nil
    }

    fileprivate func didReceive(_ message: MQTTMessage) {
        received.append(message)
    }

    /// A publish was acknowledged (QoS 1) or sent (QoS 0), with the broker's reason code (MQTT 5;
    /// always 0 under 3.1.1, where a broker cannot say no).
    fileprivate func didPublish(_ mid: Int32, reason: Int32) {
        if let goodbye, goodbye.mid == mid { goodbye.settled.yield(true) }
        let topic = unacknowledged.removeValue(forKey: mid)
        guard reason >= 0x80, let topic else { return }
        happened.append(.publishRefused(topic: topic, reason: Libmosquitto.reasonString(reason)))
    }
}

private let onPublish: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, OpaquePointer?) -> Void = { _, context, mid, reason, _ in
    guard let context else { return }
    Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue().didPublish(mid, reason: reason)
}

private let onConnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    guard let context else { return }
    Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue().didConnect(code)
}

private let onDisconnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    guard let context else { return }
    Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue().didDisconnect(code)
}

private let onMessage: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = { _, context, message in
    guard let context, let message, let topic = message.pointee.topic else { return }
    let connection = Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue()
    let length = Int(message.pointee.payloadlen)
    let oversized = connection.maximumPayloadSize.map { length > $0 } ?? false
    let payload: [UInt8] = length > 0 && message.pointee.payload != nil && !oversized
        ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: length))
        : []
    var received = MQTTMessage(topic: String(cString: topic), payload: payload, qos: Int(message.pointee.qos), retain: message.pointee.retain)
    received.isOversized = oversized
    connection.didReceive(received)
}
