import Dispatch
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// Speaks announcements with `espeak-ng` when it is installed. Each utterance is its own process,
/// started and reaped off the button's path: nothing waits for speech.
public struct SpeechAnnouncer: Sendable {
    public let executable: String?

    public init(searchPath: [String] = ["/usr/bin/espeak-ng", "/usr/local/bin/espeak-ng"]) {
        executable = searchPath.first { access($0, X_OK) == 0 }
    }

    /// Starts speaking `text`; returns at once.
    public func speak(_ text: String) {
        guard let executable else { return }
        DispatchQueue.global(qos: .utility).async {
            var pid: pid_t = 0
            let words: [String] = [executable, "--", text]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { word in word.withCString { strdup($0) } } + [nil]
            defer { argv.forEach { free($0) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            defer { posix_spawn_file_actions_destroy(&actions) }
            guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
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
