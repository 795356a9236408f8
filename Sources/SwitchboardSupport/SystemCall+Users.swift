#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension SystemCall {
    /// The name of a user (`getpwuid_r`), or nil when the user database does not know it.
    public static func userName(_ uid: uid_t) -> String? { account(of: uid)?.name }

    /// A user's account (`getpwuid_r`), or nil when the user database does not know it.
    public static func account(of uid: uid_t) -> UserAccount? {
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return UserAccount(entry)
    }

    /// The account of the user named `name` (`getpwnam_r`), or nil when there is none.
    public static func account(named name: String) -> UserAccount? {
        var entry = passwd(), result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return UserAccount(entry)
    }

    /// The user this process acts as (`geteuid`).
    public static var effectiveUser: uid_t { geteuid() }
}

/// A user of the user database (`struct passwd`): name, ids and home folder.
public struct UserAccount: Sendable, Equatable {
    public var name: String
    public var uid: uid_t
    /// The user's primary group.
    public var gid: gid_t
    public var home: String

    init(_ entry: passwd) {
        name = entry.pw_name.map { String(cString: $0) } ?? "uid \(entry.pw_uid)"
        uid = entry.pw_uid
        gid = entry.pw_gid
        home = entry.pw_dir.map { String(cString: $0) } ?? "/"
    }
}
