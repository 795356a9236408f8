import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardConfiguration

/// What a control extension started by switchboardd itself gets: the program to run (through
/// `setpriv` when it runs as another user), a clean environment, its limits, and a sentence
/// saying how isolated that leaves it, for `switchboard status`.
///
/// Every extension gets only its three pipes as descriptors, a process group of its own (signalled
/// as a group, and killed as a group when it ends), a kill when the daemon ends (even killed
/// outright: the parent-death signal, which its own children do not inherit), no core dumps, at
/// most ``fileLimit`` open files and ``memoryLimit`` of address space. Its task limit (`RLIMIT_NPROC`) counts every task of its
/// user: as a user of its own it is ``taskLimit``; as switchboardd's own user it is the tasks that
/// user has when it starts plus ``taskLimit`` (so that a fork bomb stops before it takes the
/// daemon's threads), and as root it is not enforced at all.
struct ExtensionSandbox: Sendable {
    /// The program to execute and its arguments.
    var path: String
    var arguments: [String]
    /// `NAME=value` for each variable it gets.
    var environment: [String]
    var limits: [ResourceLimit]
    /// How isolated it is: "own user nobody, own process group, …".
    var isolation: String

    /// Tasks (processes and threads) an extension's user may add while it runs.
    static let taskLimit: UInt64 = 128
    /// Its address space: a Swift extension reserves some 400 MiB idle (glibc's malloc arenas
    /// and thread stacks), more with more threads.
    static let memoryLimit: UInt64 = 2 << 30
    /// Its open descriptors.
    static let fileLimit: UInt64 = 256

    /// The only PATH an extension gets.
    static let path = "/usr/local/bin:/usr/bin:/bin"

    /// - Throws: ``ExtensionError`` when it is to run as another user and cannot.
    init(_ settings: ExtensionSettings, daemonEnvironment: [String: String]) throws {
        path = settings.executable
        arguments = settings.arguments
        let daemonUser = ExtensionProcess.currentUser
        let account: UserAccount?
        let ownUser: Bool
        if let user = settings.user, user != daemonUser {
            guard SystemCall.effectiveUser == 0 else {
                throw ExtensionError("cannot run as user \"\(user)\": switchboardd runs as \"\(daemonUser)\", and only root may switch users; remove \"user\" or run switchboardd as root")
            }
            guard let entry = SystemCall.account(named: user) else { throw ExtensionError("user \"\(user)\" does not exist; create it (adduser --system \(user)) or change \"user\"") }
            // Its own uid and primary group (a user's group is not always named after it:
            // Debian's nobody is in nogroup), and its supplementary groups. The change of user
            // clears the signal that kills it with the daemon: setpriv sets it again.
            arguments = ["--reuid=\(entry.uid)", "--regid=\(entry.gid)", "--init-groups", "--pdeathsig=SIGKILL", "--", path] + arguments
            path = "/usr/bin/setpriv"
            account = entry
            ownUser = entry.uid != SystemCall.effectiveUser
        } else {
            account = SystemCall.account(of: SystemCall.effectiveUser)
            ownUser = false
        }
        let name = account?.name ?? daemonUser
        let home = account?.home ?? "/"
        environment = Self.environment(user: name, home: home, from: daemonEnvironment)

        var limits = [ResourceLimit(.core, 0), ResourceLimit(.files, Self.fileLimit)]
        // A sanitized build (its extensions are too) reserves terabytes of address space.
        if !Sanitizers.active { limits.append(ResourceLimit(.memory, Self.memoryLimit)) }
        let taskNote: String
        if ownUser {
            limits.append(ResourceLimit(.tasks, Self.taskLimit))
            taskNote = ""
        } else if SystemCall.effectiveUser == 0 {
            taskNote = "; its task limit is not enforced (root)"
        } else {
            let tasks = Self.tasks(of: getuid()) + Self.taskLimit
            limits.append(ResourceLimit(.tasks, ResourceLimit.current(.tasks).soft.map { min($0, tasks) } ?? tasks))
            taskNote = "; its tasks count with switchboardd's"
        }
        // Without root, no limit can be above this process's own hard limit.
        if SystemCall.effectiveUser != 0 {
            limits = limits.map { limit in ResourceLimit(limit.resource, ResourceLimit.current(limit.resource).hard.map { min($0, limit.value) } ?? limit.value) }
        }
        let limitsNote: String
        if ResourceLimit.canBeSet {
            self.limits = limits
            limitsNote = "limits: \(limits.map(\.description).joined(separator: ", "))\(taskNote)"
        } else {
            // setrlimit is filtered (systemd's SystemCallFilter=~@resources): it would fail in the child.
            self.limits = []
            limitsNote = "no limits of its own (switchboardd may not set any here: setrlimit is not permitted)"
        }
        let shared = "no inherited descriptors, clean environment, own process group, killed with switchboardd, \(limitsNote)"
        isolation = ownUser
            ? "own user \(name); \(shared)"
            : "same user as switchboardd (\(name)): not isolated from it (give it a \"user\" of its own, with switchboardd as root); \(shared)"
    }

    /// The variables an extension gets: PATH (fixed), the locale, its user's HOME, USER and
    /// LOGNAME, and SWITCHBOARD_* (the daemon's own settings for its programs); never the daemon's
    /// HOME, NOTIFY_SOCKET or anything else of the daemon's.
    static func environment(user: String, home: String, from daemon: [String: String]) -> [String] {
        var variables = ["PATH": path, "HOME": home, "USER": user, "LOGNAME": user]
        for (name, value) in daemon where name == "LANG" || name == "LANGUAGE" || name.hasPrefix("LC_") || name.hasPrefix("SWITCHBOARD_") {
            variables[name] = value
        }
        return variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// The tasks (threads) of processes whose real user is `uid`: what its `RLIMIT_NPROC` counts.
    static func tasks(of uid: uid_t) -> UInt64 {
        var count: UInt64 = 0
        for entry in SystemFiles.names(in: "/proc") where entry.first?.isNumber == true {
            guard let status = try? SystemFiles.read("/proc/\(entry)/status") else { continue }
            var real: uid_t?, threads: UInt64?
            for line in String(decoding: status, as: UTF8.self).split(separator: "\n") {
                if line.hasPrefix("Uid:") { real = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { uid_t($0) } }
                if line.hasPrefix("Threads:") { threads = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { UInt64($0) } }
            }
            if real == uid { count += threads ?? 1 }
        }
        return count
    }
}
