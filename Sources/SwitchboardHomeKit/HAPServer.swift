#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SwitchboardSupport

/// The HAP accessory server: HTTP/1.1 on a TCP port as HAP uses it, one ``HAPSession`` per
/// connection, events to the subscribed sessions when the database reports a change.
///
/// All socket I/O of HomeKit is in this file: the listener and each connection's descriptor
/// have one owner (the server, a ``HAPConnection``) that closes it once; every descriptor is
/// close-on-exec (``SystemCall``). Each connection is read on a thread of its own; the sessions
/// and the pairing store are serialized by one lock, so a session's frames go out in the order
/// they were sealed. A characteristic write runs outside that lock (the connection's thread waits
/// for it), so a slow command holds up no other controller. A peer that stops reading holds that lock at most for the send
/// timeout (``sendTimeout``) before its connection is dropped. A connection that has not
/// finished pair-verify within ``handshakeTimeout`` of being accepted is closed, so that idle or
/// stalled sockets cannot hold the connection slots; a verified session is kept as long as its
/// controller keeps it and is there: a controller that vanished without closing (a phone that
/// left the network) is found by TCP keep-alive (``keepAlive``) and its connection closed.
public final class HAPServer: Service, @unchecked Sendable {
    // @unchecked Sendable: `listenerDescriptor`, `port` and the injected parts are set once in init;
    // `connections`, `stopped`, `stopWaiters` and every session (and the store, which is not
    // thread-safe) are only touched with `lock` held.
    /// The port it listens on.
    public let port: UInt16
    /// At most this many connections at once; more are closed when accepted.
    public static let maximumConnections = 64
    /// How long one write may block on a peer that does not read.
    public static let sendTimeout: Duration = .seconds(2)
    /// How long an unverified connection may stay by default: long enough for a person to type
    /// the setup code in the Home app during pair-setup.
    public static let defaultHandshakeTimeout: Duration = .seconds(60)
    /// How long a connection may stay open without finishing pair-verify.
    public let handshakeTimeout: Duration
    /// By default a silent connection is probed after 2 minutes, every 20 s, and closed after 3
    /// probes unanswered: a controller that vanished holds its connection (and its slot, and its
    /// thread) for at most 3 minutes.
    public static let defaultKeepAlive = TCPKeepAlive(idle: .seconds(120), interval: .seconds(20), probes: 3)
    /// How the server finds out that a controller is gone without having closed its connection.
    public let keepAlive: TCPKeepAlive

    private let listenerDescriptor: CInt
    private let accessory: AccessoryIdentity
    private let setupCode: SetupCode
    private let store: any PairingStore
    private let database: any HAPAccessoryDatabase
    private let lock = ThreadLock()
    private var connections: [ObjectIdentifier: HAPConnection] = [:]
    /// When the last pair-setup attempt failed (a wrong setup code), for the wait before the next.
    private var lastFailedPairSetup: ContinuousClock.Instant?
    private var listening = false
    private var stopped = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    /// Listens on `port` (0: a free one), on loopback only when `loopbackOnly`. The store is used
    /// only with the server's lock held. A connection still unverified `handshakeTimeout` after
    /// it was accepted is closed; one whose controller stopped answering `keepAlive`'s probes too.
    public init(port: UInt16 = 0, loopbackOnly: Bool = false, accessory: AccessoryIdentity, setupCode: SetupCode,
                store: any PairingStore, database: any HAPAccessoryDatabase,
                handshakeTimeout: Duration = HAPServer.defaultHandshakeTimeout,
                keepAlive: TCPKeepAlive = HAPServer.defaultKeepAlive) throws {
        do {
            (listenerDescriptor, self.port) = try SystemCall.tcpListener(port: port, loopbackOnly: loopbackOnly)
        } catch {
            throw HAPServerError(detail: "cannot listen on TCP port \(port): \(error); choose a free port in the homekit block")
        }
        self.accessory = accessory
        self.setupCode = setupCode
        self.store = store
        self.database = database
        self.handshakeTimeout = handshakeTimeout
        self.keepAlive = keepAlive
        database.observeChanges { [weak self] id, value in self?.changed([id: value]) }
    }

    deinit { SystemCall.close(listenerDescriptor) }

    /// Starts accepting connections, once, on a thread of the server's own. The listener does not
    /// wait for any task: a controller that connects is served even while the task that will
    /// ``run()`` the server still waits for a thread of a busy pool. ``run()`` starts it too.
    public func start() {
        let first = lock.withLock { () -> Bool in
            guard !listening, !stopped else { return false }
            listening = true
            return true
        }
        if first { LoopThread.start(name: "HAP listener") { [self] in acceptLoop() } }
    }

    /// Serves until its task is cancelled or ``stop()`` is called, then closes every connection.
    public func run() async throws {
        start()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.withLock {
                    if stopped { continuation.resume() } else { stopWaiters.append(continuation) }
                }
            }
        } onCancel: {
            stop()
        }
    }

    /// Stops accepting and ends every connection.
    public func stop() {
        let (waiters, open) = lock.withLock { () -> ([CheckedContinuation<Void, Never>], [HAPConnection]) in
            guard !stopped else { return ([], []) }
            stopped = true
            defer { stopWaiters = [] }
            return (stopWaiters, Array(connections.values))
        }
        try? SystemCall.shutdown(listenerDescriptor)
        for connection in open { connection.shutdown() }
        for waiter in waiters { waiter.resume() }
    }

    /// Ends every connection (after the pairings were removed: the accessory is unpaired).
    public func closeConnections() {
        lock.withLock {
            for connection in connections.values { connection.shutdown() }
        }
    }

    /// How many connections are open.
    public var connectionCount: Int { lock.withLock { connections.count } }

    private func acceptLoop() {
        while true {
            let descriptor: CInt
            do throws(Errno) {
                descriptor = try SystemCall.accept(listenerDescriptor)
            } catch {
                if lock.withLock({ stopped }) { return }
                if error == .badFileDescriptor || error == .invalidArgument { return }
                // Out of descriptors: the connections that end make room.
                if error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem { usleep(100_000) }
                continue
            }
            let acceptedAt = ContinuousClock.now
            let connection = HAPConnection(descriptor: descriptor, session: HAPSession(
                accessory: accessory, setupCode: setupCode, store: store, database: database))
            let admitted = lock.withLock { () -> Bool in
                guard !stopped, connections.count < HAPServer.maximumConnections else { return false }
                connections[ObjectIdentifier(connection)] = connection
                return true
            }
            guard admitted else { connection.close(); continue }
            connection.setSendTimeout(HAPServer.sendTimeout)
            connection.setKeepAlive(keepAlive)
            connection.setNoDelay()
            let deadline = acceptedAt + handshakeTimeout
            LoopThread.start(name: "HAP connection") { [self] in serve(connection, verifiedBy: deadline) }
        }
    }

    /// Serves the connection on its own thread until it ends; one whose session is not verified
    /// by `deadline` is closed then. Its reads wait at most until the deadline while it is
    /// unverified (the kernel's receive timeout), so the close needs no other thread or queue,
    /// however busy the process is.
    private func serve(_ connection: HAPConnection, verifiedBy deadline: ContinuousClock.Instant) {
        defer {
            lock.withLock { _ = connections.removeValue(forKey: ObjectIdentifier(connection)) }
            connection.close()
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var bounded = true
        while true {
            if bounded {
                guard !lock.withLock({ connection.session.isEncrypted }) else {
                    connection.setReceiveTimeout(nil)
                    bounded = false
                    continue
                }
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return }
                connection.setReceiveTimeout(left)
            }
            guard let count = connection.read(into: &buffer), count > 0 else { return }
            let bytes = Array(buffer.prefix(count))
            var step = lock.withLock { handle(connection) { (session: inout HAPSession) throws(HAPSessionClosing) in try session.receive(bytes) } }
            // A write waits for its command outside the lock: the other sessions are served and
            // get their events meanwhile. This connection reads nothing more until it is answered.
            while case .write(let writes) = step {
                let statuses = perform(writes)
                step = lock.withLock {
                    connection.writing = []
                    connection.written.note(writes, statuses)
                    return handle(connection) { (session: inout HAPSession) throws(HAPSessionClosing) in try session.completeWrites(statuses) }
                }
            }
            guard case .keepOpen = step else { return }
        }
    }

    /// What a connection does after a request: read on, write values first, or close.
    private enum Step {
        case keepOpen
        case write([HAPCharacteristicWrite])
        case close
    }

    /// Runs one step of a connection's session and sends its output; called with the lock held.
    private func handle(_ connection: HAPConnection, _ step: (inout HAPSession) throws(HAPSessionClosing) -> (output: [UInt8], effects: [HAPSession.Effect])) -> Step {
        do throws(HAPSessionClosing) {
            // One pair-setup at a time: it ends with M6, a refusal, or its connection.
            connection.session.anotherPairSetupInProgress = connections.values.contains {
                $0 !== connection && $0.session.isPairSetupInProgress
            }
            // A wrong setup code makes the next attempt wait (PairSetupBackoff).
            let now = ContinuousClock.now, failures = store.failedPairSetupAttempts
            connection.session.pairSetupRetryAfter = lastFailedPairSetup.flatMap {
                PairSetupBackoff.remaining(failures: failures, sinceLastFailure: now - $0)
            }
            let (output, effects) = try step(&connection.session)
            if store.failedPairSetupAttempts > failures { lastFailedPairSetup = now }
            guard connection.send(output) else { return .close }
            var writes: [HAPCharacteristicWrite] = []
            for effect in effects {
                switch effect {
                case .pairingsRemoved(let identifiers):
                    for other in connections.values where other.session.controller.map({ identifiers.contains($0.identifier) }) ?? false {
                        other.shutdown()
                    }
                case .writes(let values):
                    writes += values
                }
            }
            guard writes.isEmpty else {
                connection.writing = Set(writes.map(\.id))
                return .write(writes)
            }
            return .keepOpen
        } catch {
            _ = connection.send(error.answer)
            return .close
        }
    }

    /// Writes the values through the database, one after the other, waiting on this connection's
    /// thread (never on the cooperative pool's).
    private func perform(_ writes: [HAPCharacteristicWrite]) -> [HAPStatus] {
        let database = self.database
        let done = DispatchSemaphore(value: 0)
        let statuses = Locked<[HAPStatus]>([])
        Task(executorPreference: database.writeExecutor) {
            for write in writes {
                let status = await database.write(write.id, write.value)
                statuses.withLock { $0.append(status) }
            }
            done.signal()
        }
        done.wait()
        return statuses.withLock { $0 }
    }

    /// Sends an event with the changed values to every session subscribed to one of them, but not
    /// to a session of the values it is writing.
    private func changed(_ values: [HAPCharacteristicID: HAPJSON]) {
        lock.withLock {
            for connection in connections.values {
                // A controller is not told of the value it is writing, nor of the one it wrote
                // when the change comes after the answer.
                let others = connection.written.news(in: values.filter { !connection.writing.contains($0.key) })
                if let event = connection.session.event(for: others), !connection.send(event) {
                    connection.shutdown()
                }
            }
        }
    }
}

/// One accepted connection: owns its descriptor and closes it once.
final class HAPConnection: @unchecked Sendable {
    // @unchecked Sendable: `session`, `writing` and `written` are only touched with the server's lock held; `closed` with
    // `descriptorLock` held; `descriptor` is set once.
    let descriptor: CInt
    var session: HAPSession
    /// The characteristics its session is writing now (it gets no event of them).
    var writing: Set<HAPCharacteristicID> = []
    /// The values its session wrote whose change has not come yet.
    var written = HAPWrittenValues()
    private let descriptorLock = ThreadLock()
    private var closed = false

    init(descriptor: CInt, session: HAPSession) {
        self.descriptor = descriptor
        self.session = session
    }

    deinit { close() }

    func setSendTimeout(_ timeout: Duration) {
        try? SystemCall.setSendTimeout(descriptor, timeout)
    }

    func setKeepAlive(_ keepAlive: TCPKeepAlive) {
        try? SystemCall.setKeepAlive(descriptor, keepAlive)
    }

    /// Replies and events go out as they are written (`TCP_NODELAY`).
    func setNoDelay() {
        try? SystemCall.setNoDelay(descriptor)
    }

    /// Bounds how long a read waits (nil: no bound); a read that times out ends the connection.
    func setReceiveTimeout(_ timeout: Duration?) {
        try? SystemCall.setReceiveTimeout(descriptor, timeout)
    }

    /// Reads what arrived (blocking); nil or 0 when the connection ended.
    func read(into buffer: inout [UInt8]) -> Int? {
        try? SystemCall.read(descriptor, into: &buffer)
    }

    /// Sends all of `bytes`; false when the peer is gone or does not read.
    func send(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return true }
        return (try? SystemCall.writeAll(bytes, to: descriptor, isSocket: true)) != nil
    }

    /// Ends the connection: its reader sees the end and closes it.
    func shutdown() {
        descriptorLock.withLock { if !closed { try? SystemCall.shutdown(descriptor) } }
    }

    func close() {
        descriptorLock.withLock {
            guard !closed else { return }
            closed = true
            SystemCall.close(descriptor)
        }
    }
}

/// The HAP server could not start.
public struct HAPServerError: Error, CustomStringConvertible {
    public var detail: String
    public var description: String { "HomeKit: \(detail)" }
}
