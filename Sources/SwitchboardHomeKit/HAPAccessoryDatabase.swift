/// A characteristic's address in the attribute database: the accessory's `aid` and the
/// characteristic's `iid`.
public struct HAPCharacteristicID: Hashable, Sendable, CustomStringConvertible {
    public var aid: Int
    public var iid: Int

    public init(aid: Int, iid: Int) {
        self.aid = aid
        self.iid = iid
    }

    public var description: String { "\(aid).\(iid)" }
}

/// HAP's status codes for one characteristic (HAP 6.7.1.4), sent in a 207 Multi-Status answer.
public enum HAPStatus: Int, Sendable, Error {
    case success = 0
    case insufficientPrivileges = -70401
    case serviceCommunicationFailure = -70402
    case resourceBusy = -70403
    case readOnly = -70404
    case writeOnly = -70405
    case notificationNotSupported = -70406
    case outOfResources = -70407
    case timedOut = -70408
    case resourceDoesNotExist = -70409
    case invalidValue = -70410
    case insufficientAuthorization = -70411
}

/// What the HAP server serves: the accessory side, narrow so that the daemon (or a test
/// accessory) plugs in. Called from the server's connection threads: implementations are
/// thread-safe.
public protocol HAPAccessoryDatabase: Sendable {
    /// The attribute database: the `accessories` array of `GET /accessories`, with each
    /// characteristic's current value.
    func accessories() -> HAPJSON
    /// A characteristic's value, or why it cannot be read.
    func read(_ characteristic: HAPCharacteristicID) -> Result<HAPJSON, HAPStatus>
    /// Writes a controller's value; `.success` once it is done (the change is also reported to
    /// the observer of ``observeChanges(_:)``). The server waits for it on the connection's own
    /// thread, holding nothing that other sessions need: it may take as long as the command does.
    func write(_ characteristic: HAPCharacteristicID, _ value: HAPJSON) async -> HAPStatus
    /// Whether the characteristic exists and can send events (HAP's `ev` permission).
    func supportsEvents(_ characteristic: HAPCharacteristicID) -> Bool
    /// Calls `observer` with every change of a value, from any path; set once by the server.
    func observeChanges(_ observer: @escaping @Sendable (HAPCharacteristicID, HAPJSON) -> Void)
    /// The accessory's identify routine (`POST /identify`, while unpaired).
    func identify()
    /// Where the server runs its writes: the executor of what they call (the daemon's node loop,
    /// where its control center runs), so that a write does not hop between threads; nil for the
    /// cooperative pool.
    var writeExecutor: (any TaskExecutor)? { get }
}

extension HAPAccessoryDatabase {
    public var writeExecutor: (any TaskExecutor)? { nil }
}

/// One value a controller writes (`PUT /characteristics`).
public struct HAPCharacteristicWrite: Sendable, Equatable {
    public var id: HAPCharacteristicID
    public var value: HAPJSON

    public init(id: HAPCharacteristicID, value: HAPJSON) {
        self.id = id
        self.value = value
    }
}
