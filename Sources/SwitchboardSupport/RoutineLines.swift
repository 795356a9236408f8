
/// How often a routine log line (one per command: "porch ON performed") is written: at most
/// `limit` lines of one kind (a key) per `window`; past that they are counted, and the next line
/// of that kind written once its window is over is preceded by how many were suppressed. So a
/// node under steady load logs a few lines a minute per kind, not one per command, and a person
/// reading the log still sees that commands came and how many.
struct RoutineLines {
    /// What to do with one line.
    enum Decision: Equatable {
        /// Write it, after saying that `suppressedBefore` lines of its kind were not written (if any).
        case write(suppressedBefore: Int)
        /// Count it; do not write it.
        case suppress
    }

    private struct Window {
        var start: OffsetInstant
        var written: Int
        var suppressed: Int
    }

    let limit: Int
    let window: Duration
    // Keys are the few kinds of routine line the daemon has, so the dictionary stays small.
    private var windows: [String: Window] = [:]

    init(limit: Int, window: Duration) {
        self.limit = limit
        self.window = window
    }

    /// A line of kind `key` comes at `now`.
    mutating func admit(_ key: String, at now: OffsetInstant) -> Decision {
        guard var current = windows[key], now < current.start.advanced(by: window) else {
            let suppressed = windows[key]?.suppressed ?? 0
            windows[key] = Window(start: now, written: 1, suppressed: 0)
            return .write(suppressedBefore: suppressed)
        }
        defer { windows[key] = current }
        guard current.written < limit else {
            current.suppressed += 1
            return .suppress
        }
        current.written += 1
        return .write(suppressedBefore: 0)
    }
}

/// The daemon's ``RoutineLines`` on its clock, shared by every copy of a ``Log``.
final class RoutineLimiter: Sendable {
    // Invariant: the state is only touched under the mutex.
    private let lines: Locked<RoutineLines>
    private let clock: AnyClock

    init(limit: Int, window: Duration, clock: AnyClock) {
        lines = Locked(RoutineLines(limit: limit, window: window))
        self.clock = clock
    }

    var window: Duration { lines.withLock { $0.window } }

    func admit(_ key: String) -> RoutineLines.Decision {
        let now = clock.now
        return lines.withLock { $0.admit(key, at: now) }
    }
}
