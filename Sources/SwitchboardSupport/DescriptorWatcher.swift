#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own that sleeps in `poll(2)` over the descriptors it watches and, when one is
/// readable, calls its watch's handler on that thread: how this process waits for lines on pipes
/// and sockets (``FileDescriptorLines``), instead of a `DispatchSource` for each.
///
/// Libdispatch on Linux keeps one `epoll` registration ("muxnote") per watched descriptor, and
/// tearing sources down on some threads while others are set up can free a registration that its
/// event thread still reads; the process then stops with `SIGSEGV` in
/// `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949). Readers come and go here
/// all the time (every CLI command, every start of an extension), so they are watched by a loop
/// that owns its bookkeeping: a watch's descriptor is only polled by the watcher's thread, its
/// handler only runs there, and its cancellation runs there too, after its last handler and
/// before the descriptor leaves the next `poll`, so that whoever closes it then (the cancellation
/// handler) never closes it under a `poll` or a read.
///
/// A handler must not block: while it runs, no other descriptor is served. It reads what is
/// ready and returns; a descriptor still readable after it returned is served again on the next
/// turn, after the others.
public final class DescriptorWatcher: Sendable {
    // Invariant: `state` is only touched under its lock; handlers and cancellations run only on
    // the watcher's thread, one at a time.
    private struct Entry {
        let descriptor: Int32
        let watch: DescriptorWatch
        var paused = false
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        /// Cancelled watches whose cancellation has not run yet.
        var cancelled: [DescriptorWatch] = []
        var nextIdentifier: UInt64 = 0
    }

    private let state = Locked(State())
    private let waker: Waker
    /// The watcher's name, for messages.
    public let name: String

    /// Starts the watcher's thread, which runs as long as the process.
    /// - Throws: ``SystemCallError`` for `pipe` when the process is out of descriptors.
    private init(name: String) throws(SystemCallError) {
        waker = try Waker()
        self.name = name
        let state = self.state, waker = self.waker
        LoopThread.start(name: name) { Self.run(state: state, waker: waker) }
    }

    private static let sharedWatcher = Locked<DescriptorWatcher?>(nil)

    /// The process's watcher, started on first use; nil while it cannot be started (no
    /// descriptor left for its pipe), tried again on the next call.
    public static var shared: DescriptorWatcher? {
        sharedWatcher.withLock { watcher in
            if watcher == nil { watcher = try? DescriptorWatcher(name: "switchboard.descriptors") }
            return watcher
        }
    }

    /// Watches `descriptor` from now on: `readable` runs on the watcher's thread each time it is
    /// readable (or at end of file, or in error), given the watch (to pause or cancel it), until
    /// the returned watch is cancelled; `cancelled` runs there once after that, after the last
    /// `readable`. The descriptor stays the caller's: the watcher never closes it, and the caller
    /// must not close it before `cancelled` ran. A watch made `paused` is not polled until
    /// ``DescriptorWatch/resume()``.
    public func watch(
        _ descriptor: Int32, paused: Bool = false,
        readable: @escaping @Sendable (DescriptorWatch) -> Void, cancelled: @escaping @Sendable () -> Void
    ) -> DescriptorWatch {
        let watch = state.withLock { state -> DescriptorWatch in
            state.nextIdentifier += 1
            let watch = DescriptorWatch(identifier: state.nextIdentifier, watcher: self, readable: readable, cancelled: cancelled)
            state.entries[watch.identifier] = Entry(descriptor: descriptor, watch: watch, paused: paused)
            return watch
        }
        if !paused { waker.wake() }
        return watch
    }

    func setPaused(_ paused: Bool, _ watch: DescriptorWatch) {
        let changed = state.withLock { state -> Bool in
            guard let entry = state.entries[watch.identifier], entry.paused != paused else { return false }
            state.entries[watch.identifier]?.paused = paused
            return true
        }
        if changed, !paused { waker.wake() }
    }

    func cancel(_ watch: DescriptorWatch) {
        let removed = state.withLock { state -> Bool in
            guard state.entries.removeValue(forKey: watch.identifier) != nil else { return false }
            state.cancelled.append(watch)
            return true
        }
        if removed { waker.wake() }
    }

    /// The watcher's thread: cancellations first, then one `poll` over the watched descriptors
    /// that are not paused, then the handlers of those that are ready.
    private static func run(state: Locked<State>, waker: Waker) {
        var descriptors: [pollfd] = []
        var identifiers: [UInt64] = []
        while true {
            let cancelled = state.withLock { state -> [DescriptorWatch] in
                defer { state.cancelled.removeAll() }
                return state.cancelled
            }
            for watch in cancelled { watch.cancelled() }
            descriptors.removeAll(keepingCapacity: true)
            identifiers.removeAll(keepingCapacity: true)
            state.withLock { state in
                for (identifier, entry) in state.entries where !entry.paused {
                    descriptors.append(pollfd(fd: entry.descriptor, events: Int16(POLLIN), revents: 0))
                    identifiers.append(identifier)
                }
            }
            waker.sleep(watching: &descriptors, timeout: -1)
            for (index, polled) in descriptors.enumerated() where polled.revents != 0 {
                // Cancelled or paused by an earlier handler of this turn: not served.
                let watch = state.withLock { state -> DescriptorWatch? in
                    guard let entry = state.entries[identifiers[index]], !entry.paused else { return nil }
                    return entry.watch
                }
                if let watch { watch.readable(watch) }
            }
        }
    }
}

/// One descriptor watched by a ``DescriptorWatcher``: pause, resume or cancel it from any thread.
public final class DescriptorWatch: Sendable {
    let identifier: UInt64
    let readable: @Sendable (DescriptorWatch) -> Void
    let cancelled: @Sendable () -> Void
    private let watcher: DescriptorWatcher

    init(identifier: UInt64, watcher: DescriptorWatcher, readable: @escaping @Sendable (DescriptorWatch) -> Void, cancelled: @escaping @Sendable () -> Void) {
        self.identifier = identifier
        self.watcher = watcher
        self.readable = readable
        self.cancelled = cancelled
    }

    /// Stops polling the descriptor (its handler is not called) until ``resume()``.
    public func pause() { watcher.setPaused(true, self) }

    /// Polls the descriptor again after ``pause()``.
    public func resume() { watcher.setPaused(false, self) }

    /// Stops watching for good: the handler is not called again, and the cancellation runs once,
    /// on the watcher's thread. A second call does nothing.
    public func cancel() { watcher.cancel(self) }
}
