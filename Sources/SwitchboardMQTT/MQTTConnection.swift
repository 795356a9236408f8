import CMosquitto
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A connection to an MQTT broker through libmosquitto, driven by its socket: a `DispatchSource`
/// reads when the socket is readable, writes only while libmosquitto has bytes to send, and a
/// timer runs keepalive housekeeping at half the keepalive interval. No thread of libmosquitto's
/// runs and nothing polls.
///
/// Incoming messages and connection events are `AsyncSequence`s. Subscriptions are renewed after
/// every reconnect; reconnects follow the configured backoff (capped, exponential, with jitter).
public final class MQTTConnection: @unchecked Sendable {
    // Invariant: `handle` and every `var` below are touched only on `queue`; libmosquitto's
    // callbacks run inside the loop calls made on `queue`, so they are on it too.
    private let queue = DispatchQueue(label: "switchboard.mqtt")
    private var handle: OpaquePointer!
    private let configuration: MQTTClientConfiguration
    private var backoff: Backoff
    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var writeResumed = false
    private var housekeeping: (any DispatchSourceTimer)?
    private var subscriptions: [(filter: String, qos: Int32)] = []
    /// The topic of each QoS 1 publish the broker has not acknowledged yet, by message id: to
    /// name the topic of one it refuses.
    private var unacknowledged: [Int32: String] = [:]
    /// Why the broker ended the connection, when it said so (MQTT 5).
    private var serverDisconnect: String?
    /// Whether the broker accepted this connection attempt (its CONNACK came).
    private var accepted = false
    private var isConnected = false
    private var stopped = false
    private var started = false

    /// The streams messages and events go to: one reader's at a time (see ``renewStreams()``).
    private struct Streams {
        var messages: AsyncStream<MQTTMessage>
        var messageContinuation: AsyncStream<MQTTMessage>.Continuation
        var events: AsyncStream<MQTTConnectionEvent>
        var eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation

        init() {
            (messages, messageContinuation) = AsyncStream<MQTTMessage>.makeStream(bufferingPolicy: .unbounded)
            (events, eventContinuation) = AsyncStream<MQTTConnectionEvent>.makeStream(bufferingPolicy: .unbounded)
        }
    }

    private let streams = Locked(Streams())
    /// Messages on the subscribed topics.
    public var messages: AsyncStream<MQTTMessage> { streams.withLock { $0.messages } }
    /// Connection events.
    public var events: AsyncStream<MQTTConnectionEvent> { streams.withLock { $0.events } }
    private var messageContinuation: AsyncStream<MQTTMessage>.Continuation { streams.withLock { $0.messageContinuation } }
    private var eventContinuation: AsyncStream<MQTTConnectionEvent>.Continuation { streams.withLock { $0.eventContinuation } }

    /// Creates the client; nothing connects until ``start()``.
    /// - Throws: ``MQTTError`` `.configuration` for bad options or unreadable TLS files.
    public init(_ configuration: MQTTClientConfiguration) throws {
        self.configuration = configuration
        backoff = configuration.reconnect
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
        // Sources hold only weak references and their own descriptors, so they may finish
        // cancelling after this.
        detachSocket()
        if let handle { Libmosquitto.destroy(handle) }
        messageContinuation.finish()
        eventContinuation.finish()
    }

    /// Starts connecting; if the broker cannot be reached, retries with backoff.
    public func start() {
        queue.async {
            guard !self.started else { return }
            self.started = true
            self.attempt(first: true)
        }
    }

    /// Disconnects (the broker does not publish the will) and stops reconnecting.
    public func stop() {
        queue.sync {
            stopped = true
            if isConnected {
                Libmosquitto.disconnect(handle)
                try? Libmosquitto.write(handle)
            }
            isConnected = false
            detachSocket()
        }
        messageContinuation.finish()
        eventContinuation.finish()
    }

    /// Publishes a message. While disconnected, QoS 1 messages wait in libmosquitto for the next
    /// connection; QoS 0 messages are dropped.
    public func publish(_ message: MQTTMessage) {
        queue.async {
            guard !self.stopped else { return }
            do {
                let mid = try Libmosquitto.publish(self.handle, topic: message.topic, payload: message.payload, qos: Int32(message.qos), retain: message.retain)
                if message.qos > 0 {
                    // Bounded: libmosquitto holds at most what it has queued; a broker that never
                    // acknowledges costs names, not memory.
                    if self.unacknowledged.count >= 4096 { self.unacknowledged.removeAll() }
                    self.unacknowledged[mid] = message.topic
                }
            } catch {
                // Not connected: the state is republished after the next connect.
            }
            self.updateWriteInterest()
        }
    }

    /// Subscribes now and after every reconnect (once per filter).
    public func subscribe(_ filter: String, qos: Int = 1) {
        queue.async {
            guard !self.subscriptions.contains(where: { $0.filter == filter }) else { return }
            self.subscriptions.append((filter, Int32(qos)))
            if self.isConnected {
                try? Libmosquitto.subscribe(self.handle, filter: filter, qos: Int32(qos))
                self.updateWriteInterest()
            }
        }
    }

    /// Subscribes to `filters` again if connected, so that the broker sends what it keeps retained
    /// on them once more (a new reader, such as the next configuration's, that has seen none of it).
    public func resubscribe(_ filters: [String], qos: Int = 1) {
        queue.async {
            guard self.isConnected else { return }
            for filter in filters where self.subscriptions.contains(where: { $0.filter == filter }) {
                try? Libmosquitto.subscribe(self.handle, filter: filter, qos: Int32(qos))
            }
            self.updateWriteInterest()
        }
    }

    /// Makes the subscriptions exactly `filters`: subscribes to the new ones and unsubscribes
    /// from those no longer wanted, now and after every reconnect.
    public func setSubscriptions(_ filters: [String], qos: Int = 1) {
        for filter in filters { subscribe(filter, qos: qos) }
        queue.async {
            let dropped = self.subscriptions.filter { !filters.contains($0.filter) }
            self.subscriptions.removeAll { !filters.contains($0.filter) }
            guard self.isConnected, !dropped.isEmpty else { return }
            for subscription in dropped { try? Libmosquitto.unsubscribe(self.handle, filter: subscription.filter) }
            self.updateWriteInterest()
        }
    }

    /// Ends the current ``messages`` and ``events`` streams and starts new ones, for a new reader
    /// taking the connection over: what arrives from now on goes to the new streams.
    public func renewStreams() {
        let old = streams.withLock { streams in
            defer { streams = Streams() }
            return streams
        }
        old.messageContinuation.finish()
        old.eventContinuation.finish()
    }

    /// Whether ``start()`` was called.
    public var isStarted: Bool { queue.sync { started } }

    /// The libmosquitto this build uses: "libmosquitto 2.0.21".
    public static var libraryVersion: String { "libmosquitto \(Libmosquitto.version)" }

    /// See ``MQTTClientConfiguration/maximumPayloadSize``.
    fileprivate var maximumPayloadSize: Int? { configuration.maximumPayloadSize }

    /// Whether the connection is up now.
    public var connected: Bool { queue.sync { isConnected } }

    // MARK: Connection (on `queue`)

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
            try attachSocket()
        } catch {
            lost(reason(for: error), first: first)
        }
    }

    private func attachSocket() throws {
        detachSocket()
        let descriptor = Libmosquitto.socket(handle)
        guard descriptor >= 0 else {
            throw MQTTError(.connection, call: "mosquitto_socket", detail: "no socket after connecting")
        }
        // Each source watches its own duplicate of the socket and closes it once cancelled:
        // libmosquitto may close its descriptor (reconnect, destroy) before a cancellation
        // completes, and a source must never outlive the descriptor it watches.
        let readDescriptor = dup(descriptor), writeDescriptor = dup(descriptor)
        let read = DispatchSource.makeReadSource(fileDescriptor: readDescriptor, queue: queue)
        read.setEventHandler { [weak self] in self?.service { try Libmosquitto.read($0) } }
        read.setCancelHandler { close(readDescriptor) }
        read.resume()
        readSource = read
        let write = DispatchSource.makeWriteSource(fileDescriptor: writeDescriptor, queue: queue)
        write.setEventHandler { [weak self] in self?.service { try Libmosquitto.write($0) } }
        write.setCancelHandler { close(writeDescriptor) }
        writeSource = write
        writeResumed = false
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.milliseconds(max(1000, configuration.keepalive * 500))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.service { try Libmosquitto.misc($0) } }
        timer.resume()
        housekeeping = timer
        updateWriteInterest()
    }

    private func detachSocket() {
        readSource?.cancel()
        readSource = nil
        if let writeSource {
            if !writeResumed { writeSource.resume() }
            writeSource.cancel()
        }
        writeSource = nil
        writeResumed = false
        housekeeping?.cancel()
        housekeeping = nil
    }

    /// Runs one loop step; a failure means the connection is gone.
    private func service(_ step: (OpaquePointer) throws -> Void) {
        guard !stopped, readSource != nil else { return }
        do {
            try step(handle)
            // Under MQTT 5 a broker may end the connection with a DISCONNECT ("Session taken
            // over"): libmosquitto closes its socket and its loop calls report success from then
            // on, so a closed socket is the loss.
            guard Libmosquitto.socket(handle) >= 0 else {
                lost(serverDisconnect ?? "the broker closed the connection", first: false)
                return
            }
            updateWriteInterest()
        } catch {
            lost(reason(for: error), first: false)
        }
    }

    /// Watches for writability only while libmosquitto has something to send.
    private func updateWriteInterest() {
        guard let writeSource else { return }
        let wants = Libmosquitto.wantsWrite(handle)
        if wants && !writeResumed {
            writeSource.resume()
            writeResumed = true
        } else if !wants && writeResumed {
            writeSource.suspend()
            writeResumed = false
        }
    }

    /// What a failed libmosquitto call says, and, for a TLS connection the broker dropped before
    /// accepting it, what to check: a broker that requires client certificates drops the
    /// connection during or right after the handshake, which libmosquitto reports as EPROTO or a
    /// lost connection, not as a TLS error.
    private func reason(for error: any Error) -> String {
        let reason = String(describing: error)
        guard configuration.tlsCAFile != nil, !accepted, let error = error as? MQTTError,
              error.errno == EPROTO || error.mosquittoCode == MOSQ_ERR_CONN_LOST.rawValue
        else { return reason }
        return reason + "; the broker closed the TLS connection before accepting this node: where it requires client certificates "
            + "(require_certificate), mqtt.tls.certificateFile and keyFile in devices.json must be a certificate and key its CA signed"
    }

    private func lost(_ reason: String, first: Bool) {
        detachSocket()
        isConnected = false
        guard !stopped else { return }
        let delay = backoff.recordFailure()
        eventContinuation.yield(.disconnected(reason: reason, retryIn: delay))
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.attempt(first: first)
        }
    }

    // MARK: Callbacks (on `queue`, inside loop calls)

    fileprivate func didConnect(_ code: Int32) {
        guard code == 0 else {
            // MQTT 5 reason codes (135 "Not authorized") are not MQTT 3.1.1 CONNACK codes.
            eventContinuation.yield(.refused(configuration.protocolV5 ? Libmosquitto.reasonString(code) : Libmosquitto.connackReason(code)))
            return
        }
        isConnected = true
        accepted = true
        backoff.recordSuccess()
        for subscription in subscriptions {
            try? Libmosquitto.subscribe(handle, filter: subscription.filter, qos: subscription.qos)
        }
        eventContinuation.yield(.connected)
    }

    /// The connection ended, inside a loop call: under MQTT 5 the reason code of the broker's
    /// DISCONNECT, if it sent one, says why (``service(_:)`` handles the loss).
    fileprivate func didDisconnect(_ code: Int32) {
        isConnected = false
        serverDisconnect = configuration.protocolV5 && code >= 0x80 ? "the broker closed the connection: \(Libmosquitto.reasonString(code))" : nil
    }

    fileprivate func didReceive(_ message: MQTTMessage) {
        messageContinuation.yield(message)
    }

    /// A publish was acknowledged (QoS 1) or sent (QoS 0), with the broker's reason code (MQTT 5;
    /// always 0 under 3.1.1, where a broker cannot say no).
    fileprivate func didPublish(_ mid: Int32, reason: Int32) {
        let topic = unacknowledged.removeValue(forKey: mid)
        guard reason >= 0x80, let topic else { return }
        eventContinuation.yield(.publishRefused(topic: topic, reason: Libmosquitto.reasonString(reason)))
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
