import SwitchboardSupport

/// Where ``StateFile`` puts its bytes: the system's `write` and `fsync` (``SystemStateFileStorage``),
/// or, in a test, a storage that fails as a full or broken disk does.
public protocol StateFileStorage: Sendable {
    /// Writes all of `bytes` to an open file of the state directory.
    func write(_ bytes: [UInt8], to descriptor: Int32) throws(Errno)
    /// Puts an open file's data on storage.
    func sync(_ descriptor: Int32) throws(Errno)
}

/// The state file's bytes through ``SystemCall``: `write` and `fsync`.
public struct SystemStateFileStorage: StateFileStorage {
    public init() {}

    public func write(_ bytes: [UInt8], to descriptor: Int32) throws(Errno) {
        try SystemCall.writeAll(bytes, to: descriptor)
    }

    public func sync(_ descriptor: Int32) throws(Errno) {
        try SystemCall.fsync(descriptor)
    }
}
