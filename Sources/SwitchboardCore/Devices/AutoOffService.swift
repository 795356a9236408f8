#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwitchboardSupport

/// Runs the auto-off schedule: switches devices off when their time comes, asks for their
/// controls to re-render as the countdown ticks, and keeps each deadline in the state file (as
/// wall-clock time) so that a restart keeps it.
public final class AutoOffService: Sendable {
    // Invariant: the schedule is read and changed only under the mutex.
    private let state = Locked(AutoOffSchedule())
    private let clock: AnyClock
    private let wallClock: @Sendable () -> Double
    /// Rung when the schedule changed or a timer fired.
    private let wake = Doorbell()

    /// - Parameters:
    ///   - clock: the clock countdowns run on.
    ///   - wallClock: seconds since 1970, for deadlines kept across restarts.
    public init(clock: some Clock<Duration> = ContinuousClock(), wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.clock = AnyClock(clock)
        self.wallClock = wallClock
    }

    /// Starts a countdown; returns its wall-clock deadline for the state file.
    @discardableResult
    public func start(_ id: String, duration: Duration) -> Double {
        state.withLock { _ = $0.start(id, at: clock.now, duration: duration) }
        wake.ring()
        let (seconds, attoseconds) = duration.components
        return wallClock() + Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Resumes a countdown saved as a wall-clock deadline; one already past fires at once.
    public func resume(_ id: String, wallDeadline: Double) {
        let remaining = max(0, wallDeadline - wallClock())
        start(id, duration: .milliseconds(Int64((remaining * 1000).rounded())))
    }

    public func cancel(_ id: String) {
        state.withLock { $0.cancel(id) }
        wake.ring()
    }

    /// Switches a device through `hub` and starts or cancels its countdown: `duration` runs while
    /// it is on. The countdown runs whatever happens to the deadline's save (it stays in memory,
    /// and goes to storage with the next save that works).
    public func set(_ id: String, to value: Bool, on hub: DeviceHub, offAfter duration: Duration?) async throws {
        try await hub.set(id, to: value)
        guard let duration else { return }
        if value {
            let deadline = start(id, duration: duration)
            try? hub.updatePersisted { $0.autoOff[id] = deadline }
        } else {
            cancel(id)
            try? hub.updatePersisted { $0.autoOff[id] = nil }
        }
    }

    /// "Off in 9:41" while a device's countdown runs.
    public func status(_ id: String) -> String? {
        state.withLock { $0.status(id, at: clock.now) }
    }

    /// Whether a device's countdown runs.
    public func isRunning(_ id: String) -> Bool { state.withLock { $0.deadlines[id] != nil } }

    /// Runs until cancelled. `switchOff` is called for each device whose time came; `refresh` with
    /// the devices whose countdown text may have changed.
    public func run(switchOff: @escaping @Sendable (String) async -> Void, refresh: @escaping @Sendable ([String]) async -> Void) async {
        var alarm = WakeAlarm(clock: clock, ringing: wake)
        await withDiscardingTaskGroup { group in
            for await _ in wake {
                let now = clock.now
                let (due, active) = state.withLock { ($0.takeDue(at: now), Array($0.deadlines.keys)) }
                for id in due { await switchOff(id) }
                if !(due.isEmpty && active.isEmpty) { await refresh((due + active).sorted()) }
                if let next = state.withLock({ $0.nextWake(after: clock.now) }), let sleep = alarm.arm(at: next) {
                    group.addTask(operation: sleep)
                }
            }
        }
    }
}
