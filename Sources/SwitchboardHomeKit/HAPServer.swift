import Foundation
import SwitchboardSupport

/// The HAP accessory server: HTTP/1.1 on a TCP port as HAP uses it, one ``HAPSession`` per
/// connection, events to the subscribed sessions when the database reports a change.
///
/// All socket I/O of HomeKit is in this file: the listener and each connection's descriptor
/// have one owner (the server, a ``HAPConnection``) that closes it once; every descriptor is
/// close-on-exec (``SystemCall``). Each connection is read on a thread of its own; the sessions,
/// the pairing store and every write are serialized by one lock, so a session's frames go out
/// in the order they were sealed. A peer that stops reading holds that lock at most for the send
/// timeout (``sendTimeout``) before its connection is dropped.
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

    private let listenerDescriptor: CInt
    private let accessory: AccessoryIdentity
    private let setupCode: SetupCode
    private let store: any PairingStore
    private let database: any HAPAccessoryDatabase
    private let lock = NSRecursiveLock()
    private var connections: [ObjectIdentifier: HAPConnection] = [:]
    private var stopped = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// The connection whose request is being handled (its own writes send it no event).
    private var handling: HAPConnection?

    /// Listens on `port` (0: a free one), on loopback only when `loopbackOnly`. The store is used
    /// only with the server's lock held.
    public init(port: UInt16 = 0, loopbackOnly: Bool = false, accessory: AccessoryIdentity, setupCode: SetupCode,
                store: any PairingStore, database: any HAPAccessoryDatabase) throws {
        do {
            (listenerDescriptor, self.port) = try SystemCall.tcpListener(port: port, loopbackOnly: loopbackOnly)
        } catch {
            throw HAPServerError(detail: "cannot listen on TCP port \(port): \(error); choose a free port in the homekit block")
        }
        self.accessory = accessory
        self.setupCode = setupCode
        self.store = store
        self.database = database
        database.observeChanges { [weak self] id, value in self?.changed([id: value]) }
    }

    deinit { SystemCall.close(listenerDescriptor) }

    /// Serves until its task is cancelled or ``stop()`` is called, then closes every connection.
    public func run() async throws {
        Thread.detachNewThread { [self] in acceptLoop() }
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
                if error == .tooManyOpenFiles || error == .tooManyOpenFilesInSystem { Thread.sleep(forTimeInterval: 0.1) }
                continue
            }
            let connection = HAPConnection(descriptor: descriptor, session: HAPSession(
                accessory: accessory, setupCode: setupCode, store: store, database: database))
            let admitted = lock.withLock { () -> Bool in
                guard !stopped, connections.count < HAPServer.maximumConnections else { return false }
                connections[ObjectIdentifier(connection)] = connection
                return true
            }
            guard admitted else { connection.close(); continue }
            connection.setSendTimeout(HAPServer.sendTimeout)
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: HAPConnection) {
        defer {
            lock.withLock { _ = connections.removeValue(forKey: ObjectIdentifier(connection)) }
            connection.close()
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while let count = connection.read(into: &buffer), count > 0 {
            let bytes = Array(buffer.prefix(count))
            let keepOpen = lock.withLock { () -> Bool in
                handling = connection
                defer { handling = nil }
                do {
                    let (output, effects) = try connection.session.receive(bytes)
                    guard connection.send(output) else { return false }
                    for case .pairingsRemoved(let identifiers) in effects {
                        for other in connections.values where other.session.controller.map({ identifiers.contains($0.identifier) }) ?? false {
                            other.shutdown()
                        }
                    }
                    return true
                } catch let closing as HAPSessionClosing {
                    _ = connection.send(closing.answer)
                    return false
                } catch {
                    return false
                }
            }
            guard keepOpen else { return }
        }
    }

    /// Sends an event with the changed values to every session subscribed to one of them, but the
    /// one whose write changed them.
    private func changed(_ values: [HAPCharacteristicID: HAPJSON]) {
        lock.withLock {
            for connection in connections.values where connection !== handling {
                if let event = connection.session.event(for: values), !connection.send(event) {
                    connection.shutdown()
                }
            }
        }
    }
}

/// One accepted connection: owns its descriptor and closes it once.
final class HAPConnection: @unchecked Sendable {
    // @unchecked Sendable: `session` is only touched with the server's lock held; `closed` with
    // `descriptorLock` held; `descriptor` is set once.
    let descriptor: CInt
    var session: HAPSession
    private let descriptorLock = NSLock()
    private var closed = false

    init(descriptor: CInt, session: HAPSession) {
        self.descriptor = descriptor
        self.session = session
    }

    deinit { close() }

    func setSendTimeout(_ timeout: Duration) {
        try? SystemCall.setSendTimeout(descriptor, timeout)
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
