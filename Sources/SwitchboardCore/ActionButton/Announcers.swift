import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// Speaks announcements with `espeak-ng` when it is installed, one utterance at a time: a new one
/// interrupts the one still being spoken (a hint overtaken by the outcome of a short press is
/// stale), so two never talk over each other. Processes are started and reaped off the button's
/// path: nothing waits for speech.
public final class SpeechAnnouncer: Sendable {
    public let executable: String?
    /// Starts utterances in order; it may wait (up to a second) for an interrupted one to end,
    /// which is why it is a queue of its own and never the cooperative pool.
    private let queue = DispatchQueue(label: "switchboard.speech")
    /// The utterance being spoken: its process, and a signal that it has ended.
    private struct Utterance {
        let pid: pid_t
        let ended: DispatchSemaphore
    }
    // Invariant: set and cleared under the mutex; cleared before the process is reaped, so a
    // signal never reaches a reused pid.
    private let speaking = Locked<Utterance?>(nil)

    public init(searchPath: [String] = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"]) {
        executable = searchPath.first { SystemCall.isExecutable($0) }
    }

    /// Starts speaking `text`, interrupting what is being spoken; returns at once.
    public func speak(_ text: String) {
        guard let executable else { return }
        queue.async {
            self.interrupt()
            guard let pid = Self.spawn(executable, text) else { return }
            let ended = DispatchSemaphore(value: 0)
            self.speaking.withLock { $0 = Utterance(pid: pid, ended: ended) }
            DispatchQueue.global(qos: .utility).async { self.reap(pid, ended) }
        }
    }

    /// Stops the utterance being spoken and waits until it has: SIGTERM, then SIGKILL after a second.
    private func interrupt() {
        guard let current = speaking.withLock({ utterance -> Utterance? in
            if let utterance { try? SystemCall.kill(utterance.pid, SIGTERM) }
            return utterance
        }) else { return }
        if current.ended.wait(timeout: .now() + 1) == .timedOut {
            speaking.withLock { if $0?.pid == current.pid { try? SystemCall.kill(current.pid, SIGKILL) } }
            current.ended.wait()
        }
    }

    /// Waits for an utterance's process to end, forgets it, then reaps it.
    private func reap(_ pid: pid_t, _ ended: DispatchSemaphore) {
        try? SystemCall.waitUntilExited(pid)
        speaking.withLock { if $0?.pid == pid { $0 = nil } }
        _ = try? SystemCall.waitForExit(pid)
        ended.signal()
    }

    private static func spawn(_ executable: String, _ text: String) -> pid_t? {
        try? ProcessSpawn.spawn(executable, ["--", text]).get()
    }
}

/// Blink patterns for an LED announcer: on and off durations per phase.
public enum LEDPattern {
    public static func blinks(for phase: ActionButtonAnnouncement.Phase) -> [(on: Duration, off: Duration)] {
        switch phase {
        case .hint: [(.milliseconds(100), .milliseconds(100))]
        case .performed: [(.milliseconds(600), .milliseconds(100))]
        case .cancelled: Array(repeating: (.milliseconds(100), .milliseconds(100)), count: 2)
        case .refused: Array(repeating: (.milliseconds(100), .milliseconds(100)), count: 3)
        case .failed: Array(repeating: (.milliseconds(60), .milliseconds(60)), count: 5)
        }
    }
}
