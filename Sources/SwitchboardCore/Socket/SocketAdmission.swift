#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// How many connections the local socket serves at once, in all and per user, so that a client
/// opening connections without end (a bug, a hostile local user in the group) cannot take the
/// daemon's file descriptors or starve other users.
final class SocketAdmission: Sendable {
    let total: Int
    let perUser: Int
    // Invariant: only touched under the mutex.
    private let open = Locked<(total: Int, byUser: [uid_t: Int])>((0, [:]))

    init(total: Int = 64, perUser: Int = 16) {
        self.total = total
        self.perUser = perUser
    }

    /// Takes a place for a connection from `user`, or says why there is none.
    func admit(_ user: uid_t) -> String? {
        open.withLock { open in
            if open.total >= total { return "switchboardd serves at most \(total) connections at once; try again" }
            if open.byUser[user, default: 0] >= perUser { return "user \(user) has \(perUser) connections open already, the most one user may; close some and try again" }
            open.total += 1
            open.byUser[user, default: 0] += 1
            return nil
        }
    }

    /// Gives back the place of a connection from `user` that ended.
    func leave(_ user: uid_t) {
        open.withLock { open in
            open.total -= 1
            open.byUser[user, default: 1] -= 1
            if open.byUser[user] == 0 { open.byUser[user] = nil }
        }
    }

    /// Connections open now.
    var count: Int { open.withLock { $0.total } }

    /// The user at the other end of a Unix socket connection (`SO_PEERCRED`).
    static func peerUser(of descriptor: Int32) -> uid_t {
        (try? SystemCall.peerUser(of: descriptor)) ?? uid_t.max
    }
}
