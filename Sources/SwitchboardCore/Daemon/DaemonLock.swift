#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport
import SwitchboardConfiguration

/// One daemon per state directory: an exclusive `flock` on `<state-dir>/switchboardd.pid`, held for
/// the daemon's life and dropped by the kernel however it ends (kill -9 included). The file names
/// the holder's process id, so a second daemon can say which one runs.
final class DaemonLock: Sendable {
    let path: String
    private let descriptor: Int32

    /// Takes the lock.
    /// - Throws: ``DaemonLockError`` naming the daemon that holds it, or why the file cannot be used.
    /// The lock file's name in the state directory.
    static let fileName = "switchboardd.pid"

    init(stateDirectory: StateDirectory) throws {
        path = stateDirectory.path + "/" + Self.fileName
        let folder = stateDirectory.directory
        let descriptor: Int32
        // Opened through the checked directory, never through a link.
        switch Result(catching: { () throws(SystemCallError) in try folder.openFile(Self.fileName, O_RDWR | O_CREAT, mode: 0o644) }) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw DaemonLockError(path: path, reason: "cannot be opened: \(error.errno.message)")
        }
        do {
            try SystemCall.flock(descriptor, LOCK_EX | LOCK_NB)
        } catch {
            let holder = ((try? folder.read(Self.fileName)) ?? nil).map { String(decoding: $0, as: UTF8.self).trimmingCharacters() } ?? ""
            SystemCall.close(descriptor)
            if error == .wouldBlock {
                throw DaemonLockError(path: path, reason: "is held by another switchboardd\(holder.isEmpty ? "" : " (pid \(holder))") serving this state directory; stop it first (systemctl stop switchboardd), or give this one its own --state-dir and --socket")
            }
            throw DaemonLockError(path: path, reason: "cannot be locked: \(error.message)")
        }
        try? SystemCall.truncate(descriptor, to: 0)
        try? SystemCall.writeAll(Array("\(SystemCall.processID)\n".utf8), to: descriptor)
        self.descriptor = descriptor
    }

    deinit { SystemCall.close(descriptor) }
}

/// The state directory is another daemon's, or its lock file cannot be used.
struct DaemonLockError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "\(path) \(reason)" }
}
