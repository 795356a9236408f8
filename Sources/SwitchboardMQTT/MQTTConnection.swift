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
        Libmosquitto.setCallbacks(handle, connect: onConnect, disconnect: onDisconnect, message: onMessage)
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
                try Libmosquitto.publish(self.handle, topic: message.topic, payload: message.payload, qos: Int32(message.qos), retain: message.retain)
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

    /// Whether the connection is up now.
    public var connected: Bool { queue.sync { isConnected } }

    // MARK: Connection (on `queue`)

    private func attempt(first: Bool) {
        guard !stopped else { return }
        do {
            if first {
                try Libmosquitto.connect(handle, host: configuration.host, port: configuration.port, keepalive: configuration.keepalive)
            } else {
                try Libmosquitto.reconnect(handle)
            }
            try attachSocket()
        } catch {
            lost(String(describing: error), first: first)
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
            updateWriteInterest()
        } catch {
            lost(String(describing: error), first: false)
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
            eventContinuation.yield(.refused(Libmosquitto.connackReason(code)))
            return
        }
        isConnected = true
        backoff.recordSuccess()
        for subscription in subscriptions {
            try? Libmosquitto.subscribe(handle, filter: subscription.filter, qos: subscription.qos)
        }
        eventContinuation.yield(.connected)
    }

    fileprivate func didDisconnect(_ code: Int32) {
        isConnected = false
    }

    fileprivate func didReceive(_ message: MQTTMessage) {
        messageContinuation.yield(message)
    }
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
    let length = Int(message.pointee.payloadlen)
    let payload: [UInt8] = length > 0 && message.pointee.payload != nil
        ? Array(UnsafeRawBufferPointer(start: message.pointee.payload, count: length))
        : []
    Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue().didReceive(MQTTMessage(
        topic: String(cString: topic), payload: payload, qos: Int(message.pointee.qos), retain: message.pointee.retain
    ))
}
