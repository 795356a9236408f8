import Dispatch
import SwitchboardSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardConfiguration

/// One run of a control extension: its process group, and the pipes to its standard input,
/// output and error. Owns the process: ``terminate()`` ends it and ``exit()`` says how it ended;
/// the pipes close with it.
///
/// The extension leads a process group of its own, and every signal goes to the whole group. Its
/// end is the end of its process (a thread waits for it from the start), not of its output: once
/// it has ended, whatever is left of its group (a child that kept its standard output open) is
/// killed, and its output stops being read.
final class ExtensionProcess: Sendable {
    let pid: pid_t
    /// Lines to the extension's standard input.
    let input: QueuedLineWriter
    /// Lines from its standard output (the line protocol) and standard error (its log).
    let output: FileDescriptorLines
    let errors: FileDescriptorLines
    /// How isolated it runs, for `switchboard status`.
    let isolation: String
    private let descriptors: [Int32]
    /// Set once the process is reaped: its pid may belong to another process then, so no signal
    /// is sent after it.
    private let reaped: Locked<Bool>
    /// How it ended, once it has, and who waits to know.
    private let ending: Locked<Ending>
    typealias Ending = (how: String?, waiting: [CheckedContinuation<String, Never>])

    /// How long its output is read after it ended, for the lines it wrote last.
    static let drain: Duration = .milliseconds(500)

    /// Starts the extension (as `user` through `setpriv` when given and this daemon runs as root),
    /// with only its three pipes, a clean environment and its limits (``ExtensionSandbox``). It
    /// cannot outlive the daemon: it is killed when the daemon ends, killed outright included.
    /// - Throws: ``ExtensionError`` saying why it could not start.
    init(_ settings: ExtensionSettings) throws {
        let sandbox = try ExtensionSandbox(settings, daemonEnvironment: ProcessInfo.processInfo.environment)
        let toChild = try Self.pipe(for: "its input", closingOnFailure: [])
        let fromChild = try Self.pipe(for: "its output", closingOnFailure: [toChild.read, toChild.write])
        let errorsFromChild = try Self.pipe(for: "its errors", closingOnFailure: [toChild.read, toChild.write, fromChild.read, fromChild.write])
        let output = FileDescriptorLines(descriptor: fromChild.read, maximumLineLength: 1 << 20)
        let errors = FileDescriptorLines(descriptor: errorsFromChild.read, maximumLineLength: 4096)
        let reaped = Locked(false)
        let ending = Locked<Ending>((nil, []))
        let spawned = Self.start(
            sandbox, standardInput: toChild.read, standardOutput: fromChild.write, standardError: errorsFromChild.write,
            then: Ended(reaped: reaped, ending: ending, output: output, errors: errors)
        )
        // The child's ends are the child's now.
        SystemCall.close(toChild.read)
        SystemCall.close(fromChild.write)
        SystemCall.close(errorsFromChild.write)
        switch spawned {
        case .success(let pid): self.pid = pid
        case .failure(let error):
            output.stop()
            errors.stop()
            [toChild.write, fromChild.read, errorsFromChild.read].forEach(SystemCall.close)
            throw ExtensionError(error.errno == .noSuchFileOrDirectory || error.errno == .permissionDenied
                ? "\(error.description); build it (swift build --product …) and install it beside switchboardd or in ../libexec/switchboard, or fix \"executable\" in devices.json"
                : error.description)
        }
        isolation = sandbox.isolation
        // A full input pipe (an extension that stopped reading) must not block the writer for ever.
        try? SystemCall.setNonBlocking(toChild.write)
        input = QueuedLineWriter(descriptor: toChild.write, isSocket: false, patience: 2000)
        self.output = output
        self.errors = errors
        self.reaped = reaped
        self.ending = ending
        descriptors = [toChild.write, fromChild.read, errorsFromChild.read]
    }

    /// A pipe for the child (``SystemCall/pipe()``); closes `opened` if there is none.
    private static func pipe(for purpose: String, closingOnFailure opened: [Int32]) throws(ExtensionError) -> (read: Int32, write: Int32) {
        do {
            return try SystemCall.pipe()
        } catch {
            opened.forEach(SystemCall.close)
            throw ExtensionError("no pipe for \(purpose): \(error.message)")
        }
    }

    deinit {
        descriptors.forEach(SystemCall.close)
    }

    /// Ends the process group: SIGTERM, then SIGKILL if it is still there after `grace`.
    func terminate(grace: Duration = .seconds(2)) {
        signal(SIGTERM)
        let (seconds, attoseconds) = grace.components
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) {
            self.signal(SIGKILL)
        }
    }

    /// Kills the process group at once (a hung or flooding extension).
    func killNow() { signal(SIGKILL) }

    /// Signals the whole group, while its leader is not reaped: until then its pid is the group's
    /// id and no other process's.
    private func signal(_ number: Int32) {
        reaped.withLock { reaped in
            if !reaped { try? SystemCall.kill(-pid, number) }
        }
    }

    /// What the thread that waits for the process sets and stops once it has ended.
    private struct Ended: Sendable {
        let reaped: Locked<Bool>
        let ending: Locked<Ending>
        let output: FileDescriptorLines
        let errors: FileDescriptorLines
    }

    /// Starts the process on a thread of its own (never the cooperative pool; taken before an
    /// extension's fork bomb could leave none to take), which then waits for it to end: the
    /// process is that thread's child, killed (SIGKILL) when the thread ends before it — only
    /// when the daemon ends, killed outright included, as the thread waits for it until then.
    /// Once it has ended, the thread kills what is left of its group, reaps it, and stops reading
    /// its output after ``drain``.
    private static func start(
        _ sandbox: ExtensionSandbox, standardInput: Int32, standardOutput: Int32, standardError: Int32, then ended: Ended
    ) -> Result<pid_t, SpawnError> {
        let spawned = Locked<Result<pid_t, SpawnError>?>(nil)
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = ProcessSpawn.spawnIsolated(
                sandbox.path, sandbox.arguments, standardInput: standardInput, standardOutput: standardOutput, standardError: standardError,
                environment: sandbox.environment, limits: sandbox.limits, parentDeathSignal: SIGKILL
            )
            spawned.withLock { $0 = result }
            started.signal()
            guard case .success(let pid) = result else { return }
            // Waits without reaping, so that no signal can reach a reused pid: killing the group
            // (whose id the unreaped leader keeps), reaping and marking it reaped happen under the
            // lock signals are sent under.
            try? SystemCall.waitUntilExited(pid)
            let status = ended.reaped.withLock { reaped in
                try? SystemCall.kill(-pid, SIGKILL)
                defer { reaped = true }
                return (try? SystemCall.waitForExit(pid)) ?? 0
            }
            let code = (status >> 8) & 0xff, signal = status & 0x7f
            let how = signal == 0 ? "exited with status \(code)" : "was killed by signal \(signal)"
            let waiting = ended.ending.withLock { ending in
                ending.how = how
                defer { ending.waiting = [] }
                return ending.waiting
            }
            waiting.forEach { $0.resume(returning: how) }
            // A descendant that left the group (setsid) may still hold the pipes: the output ends
            // anyway, once what was written before the end has been read.
            let (seconds, attoseconds) = Self.drain.components
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) {
                ended.output.stop()
                ended.errors.stop()
            }
        }
        // A fork and an exec: as long as a spawn on this thread would take. The result is set
        // before the signal.
        started.wait()
        return spawned.withLock { $0 }!
    }

    /// Waits for the process to end and says how: "exited with status 1", "was killed by signal 9".
    func exit() async -> String {
        await withCheckedContinuation { continuation in
            let how = ending.withLock { ending -> String? in
                if ending.how == nil { ending.waiting.append(continuation) }
                return ending.how
            }
            if let how { continuation.resume(returning: how) }
        }
    }

    static var currentUser: String {
        SystemCall.userName(SystemCall.effectiveUser) ?? "uid \(SystemCall.effectiveUser)"
    }
}

/// Why a control extension could not be started or used.
struct ExtensionError: Error, CustomStringConvertible {
    let description: String
    /// Whether it is a call that went unanswered for its timeout.
    let timedOut: Bool
    init(_ description: String, timedOut: Bool = false) {
        self.description = description
        self.timedOut = timedOut
    }
}
