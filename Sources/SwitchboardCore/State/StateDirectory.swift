#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// The daemon's state directory (`--state-dir`), opened once without following a link and
/// checked before anything in it is touched: it and every file the daemon opens in it must belong
/// to the user switchboardd runs as (or root) and be writable by no one else, and none of those
/// files may be a link. Otherwise another user could plant a link there and have the daemon —
/// perhaps running as root — overwrite or truncate a file of their choosing. Its files are then
/// reached through the open directory only (``StateFile``, ``DaemonLock``), never through a link.
public final class StateDirectory: Sendable {
    /// The directory, open.
    let directory: OpenDirectory
    public var path: String { directory.path }

    /// The files switchboardd opens in the directory.
    static let fileNames = [StateFile.snapshotName, StateFile.temporaryName, StateFile.journalName, DaemonLock.fileName,
        HomeKitStateFile.name, HomeKitStateFile.name + ".tmp", HomeAssistantRecord.name, HomeAssistantRecord.name + ".tmp",
    ]

    private init(_ directory: OpenDirectory) { self.directory = directory }

    /// Creates the directory if it is missing (mode 0750), opens it and checks it and its files.
    /// - Parameter user: the user the daemon runs as; root is accepted as an owner too.
    /// - Throws: ``StateDirectoryError`` saying what is wrong and the command that fixes it.
    public static func open(_ path: String, user: uid_t = SystemFiles.effectiveUser) throws(StateDirectoryError) -> StateDirectory {
        do {
            try OpenDirectory.make(path, mode: 0o750)
        } catch {
            throw StateDirectoryError(path: path, problems: ["state directory \(path) cannot be created: \(error)"], fixes: ["create it, writable by \(Self.describe(user)) only: install -d -m 750 -o \(Self.name(user)) \(path)"], unsafe: false)
        }
        let directory: OpenDirectory
        switch Result(catching: { () throws(SystemCallError) in try OpenDirectory(path) }) {
        case .success(let opened):
            directory = opened
        case .failure(let error) where error.errno == .tooManySymbolicLinkLevels || error.errno == .notDirectory:
            throw StateDirectoryError(path: path, problems: ["state directory \(path) is a symbolic link or not a directory; switchboardd never follows links to its state"], fixes: ["give --state-dir the real directory (readlink -f \(path))"])
        case .failure(let error):
            throw StateDirectoryError(path: path, problems: ["state directory \(path) cannot be opened: \(error)"], fixes: ["make it a directory owned by \(Self.describe(user)): install -d -m 750 -o \(Self.name(user)) \(path)"], unsafe: false)
        }
        var problems: [String] = [], fixes: [String] = []
        do {
            let status = try directory.status()
            check(status, at: path, user: user, problems: &problems, fixes: &fixes)
            for name in fileNames {
                guard let file = try directory.status(of: name) else { continue }
                let filePath = path + "/" + name
                if file.isSymbolicLink {
                    problems.append("\(filePath) is a symbolic link; switchboardd never follows links in its state directory")
                    fixes.append("rm \(filePath) (and find out who planted it)")
                    continue
                }
                guard file.isRegularFile else {
                    problems.append("\(filePath) is not a regular file")
                    fixes.append("mv \(filePath) \(filePath).not-a-file")
                    continue
                }
                check(file, at: filePath, user: user, problems: &problems, fixes: &fixes)
            }
        } catch {
            throw StateDirectoryError(path: path, problems: ["state directory \(path) cannot be checked: \(error)"], fixes: ["make it readable by \(Self.describe(user))"], unsafe: false)
        }
        guard problems.isEmpty else { throw StateDirectoryError(path: path, problems: problems, fixes: fixes) }
        return StateDirectory(directory)
    }

    /// Opens a directory as it is, unchecked: for reading and writing state in a folder of one's
    /// own (tests, tools).
    /// - Throws: ``SystemCallError`` for the `open` that failed.
    public static func unchecked(_ path: String) throws(SystemCallError) -> StateDirectory {
        StateDirectory(try OpenDirectory(path))
    }

    /// Adds what is wrong with the owner and mode of the directory or one of its files.
    private static func check(_ status: FileStatus, at path: String, user: uid_t, problems: inout [String], fixes: inout [String]) {
        let what = status.isDirectory ? "state directory \(path)" : path
        if status.owner != user && status.owner != 0 {
            problems.append("\(what) is owned by \(describe(status.owner)), not by \(describe(user)) that switchboardd runs as, nor root")
            fixes.append("chown \(name(user)) \(path)")
        }
        if status.isWritableByOthers {
            problems.append("\(what) is writable by \(status.permissions & S_IWOTH != 0 ? "every user" : "its group") (mode \(String(status.permissions, radix: 8)))")
            fixes.append("chmod go-w \(path)")
        }
    }

    /// "nobody (uid 65534)".
    static func describe(_ uid: uid_t) -> String {
        SystemFiles.userName(uid).map { "\($0) (uid \(uid))" } ?? "uid \(uid)"
    }

    /// A user's name for a command line, or its number.
    static func name(_ uid: uid_t) -> String { SystemFiles.userName(uid) ?? String(uid) }
}

/// The state directory or a file in it is unsafe to use, or cannot be used: what is wrong, and
/// the commands that fix it.
public struct StateDirectoryError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var problems: [String]
    public var fixes: [String]
    /// Whether the directory is unsafe (rather than unusable).
    public var unsafe: Bool

    public init(path: String, problems: [String], fixes: [String], unsafe: Bool = true) {
        self.path = path
        self.problems = problems
        self.fixes = fixes
        self.unsafe = unsafe
    }

    public var description: String {
        let risk = unsafe ? "; another user could have switchboardd overwrite other files through it" : ""
        return problems.joined(separator: "; ") + risk + ". Fix: " + fixes.joined(separator: "; ")
    }
}
