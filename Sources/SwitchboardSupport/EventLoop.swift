#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own that sleeps in `poll(2)` and runs Swift jobs between its sleeps: a
/// `SerialExecutor`, as swift-nio's `SelectableEventLoop` is. An actor whose `unownedExecutor` is
/// the loop's runs on this thread, where the loop's socket (an ``EventLoopSource``, the MQTT
/// connection's) is served, so that a message is handled where it arrives.
///
/// Jobs run in the order they were enqueued, one at a time. Enqueued from another thread while
/// the loop sleeps, a job wakes it at once (the ``Waker``'s pipe); enqueued from the loop's own
/// thread, it runs after the jobs before it, before the loop sleeps again. A turn of the loop runs
/// what is queued and what those jobs queue, up to ``roundsPerTurn`` rounds (a task's hop to an
/// actor on the loop and back costs no `poll`); then the loop polls its socket without waiting,
/// so that neither starves the other.
///
/// The loop also watches descriptors (``watch(_:paused:readable:cancelled:)``): pipes and sockets
/// whose readability it reports to their handlers on its thread, in the same `poll` as its
/// source. The process's loop for those, ``shared``, serves every reader of lines
/// (``FileDescriptorLines``), the GPIO lines' events and the control socket's listener, instead of
/// a `DispatchSource` for each: libdispatch on Linux keeps one `epoll` registration ("muxnote")
/// per watched descriptor, and tearing sources down on some threads while others are set up can
/// free a registration its event thread still reads; the process then stops with `SIGSEGV` in
/// `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949). Here a watched descriptor
/// is only polled by the loop's thread, its handler only runs there, and its cancellation runs
/// there too, after its last handler and before the descriptor leaves the next `poll`, so that
/// whoever closes it then (the cancellation handler) never closes it under a `poll` or a read.
///
/// Nothing that blocks may run on the loop: while it runs, no job, no packet and no other
/// descriptor is served. A handler reads what is ready and returns; a descriptor still readable
/// is served again on the next turn, after the others.
///
/// ``stop()`` is one way: the loop's thread runs the jobs already queued, forgets its source,
/// cancels its watches (their cancellations run) and ends. A job enqueued after that is not lost:
/// a new thread of the loop's is started for it, runs it and whatever was queued behind it, in
/// order and one at a time as before, and ends once the queue is empty. (A task that had its continuation on the loop still resumes; dropping the
/// job would leave it suspended for ever.) Nothing is polled any more: a watch made then is
/// cancelled at once (its cancellation runs as such a job).
///
/// A loop that no one holds any more ends as well: its thread holds it only while it runs jobs or
/// serves its source, queued work holds it until it ran (an actor's job holds the actor, which
/// holds its loop), and each watch holds it until cancelled, so a loop nothing refers to has
/// nothing left to run.
public final class EventLoop: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // Invariant: every `var` of `State` is only touched under `state`'s lock; `waker` and `name`
    // are immutable. At most one thread drains the queue at a time (`draining`), which is what
    // makes the executor serial.

    /// What the loop's source waits for next.
    public struct Wait: Sendable {
        /// The descriptor to poll (negative: none).
        public var socket: Int32
        /// Whether to wake when the socket takes bytes.
        public var writable: Bool
        /// When to wake at the latest (nil: only when woken or the socket is ready).
        public var deadline: ContinuousClock.Instant?

        public init(socket: Int32, writable: Bool = false, deadline: ContinuousClock.Instant? = nil) {
            self.socket = socket
            self.writable = writable
            self.deadline = deadline
        }
    }

    /// A watched descriptor.
    private struct Watched {
        let descriptor: Int32
        let watch: DescriptorWatch
        var paused: Bool
    }

    /// What `poll` found on the source's socket.
    public struct Ready: Sendable {
        /// Bytes (or an error, or the peer's end of the connection) to read on the socket.
        public var readable = false
        /// Room in the socket's buffer for bytes to send.
        public var writable = false

        public init(readable: Bool = false, writable: Bool = false) {
            self.readable = readable
            self.writable = writable
        }
    }

    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct State {
        var queue: [Work] = []
        /// The loop's thread is (about to be) in `poll`: an enqueue from elsewhere wakes it.
        var sleeping = false
        var stopped = false
        /// A thread of the loop's runs (the loop's thread, or after the stop a late drainer).
        var draining = true
        /// That thread, for ``checkIsolated()``.
        var thread: pthread_t?
        weak var source: (any EventLoopSource)?
        /// The loop itself, while work is queued: queued work keeps it.
        var keptByQueue: EventLoop?
        var watched: [UInt64: Watched] = [:]
        /// Cancelled watches whose cancellation has not run yet.
        var cancelled: [DescriptorWatch] = []
        var lastWatch: UInt64 = 0
    }

    private let state = Locked(State())
    private let waker: Waker
    private let readBuffer = ReadBuffer()
    /// The loop's name, for messages.
    public let name: String

    /// Starts the loop's thread.
    /// - Parameter name: what messages call the loop.
    /// - Throws: ``SystemCallError`` for `pipe` when the process is out of descriptors; raise the
    ///   open-file limit (`LimitNOFILE=` in the unit).
    public init(name: String) throws(SystemCallError) {
        waker = try Waker()
        self.name = name
        let loop = WeakLoop(self), state = self.state, waker = self.waker
        LoopThread.start(name: name) { Self.run(loop, state: state, waker: waker) }
    }

    deinit {
        // Held by nothing, queued work included: the thread, woken, finds it gone and ends.
        waker.wake()
    }


    // MARK: The executor

    /// Queues `job` to run on the loop's thread after what is queued.
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// The loop as a task executor: a task that prefers it (`withTaskExecutorPreference`,
    /// `addTask(executorPreference:)`) runs its nonisolated code here too, so that it calls an
    /// actor on this loop without leaving the thread.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Stops the process unless called on the loop's thread (for `assumeIsolated` and
    /// `preconditionIsolated` outside a job of the loop's, such as in its source).
    public func checkIsolated() {
        precondition(inEventLoop, "switchboard: expected to run on event loop \(name), but runs on another thread")
    }

    /// Whether the caller runs on the loop's thread (or, after ``stop()``, on the thread that
    /// runs its late jobs).
    public var inEventLoop: Bool {
        let current = pthread_self()
        return state.withLock { $0.thread.map { pthread_equal($0, current) != 0 } ?? false }
    }

    /// Runs `body` on the loop's thread after what is queued.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    // MARK: The source

    /// Serves `source` from now on: the loop polls what it asks for and hands it what is ready,
    /// until its ``EventLoopSource/nextWait()`` returns nil or it is gone (the loop holds it
    /// weakly). One source at a time; a loop that is stopped serves none.
    public func serve(_ source: any EventLoopSource) {
        state.withLock { $0.source = source }
        waker.wake()
    }

    /// Wakes the loop, so that it asks its source again what to wait for.
    public func wake() {
        waker.wake()
    }

    // MARK: Watched descriptors

    private static let sharedLoop = Locked<EventLoop?>(nil)

    /// The process's loop for watched descriptors ("switchboard.descriptors"), started on first
    /// use and never stopped; nil while it cannot be started (no descriptor left for its pipe),
    /// tried again on the next call.
    public static var shared: EventLoop? {
        sharedLoop.withLock { loop in
            if loop == nil { loop = try? EventLoop(name: "switchboard.descriptors") }
            return loop
        }
    }

    /// Watches `descriptor` from now on: `readable` runs on the loop's thread each time it is
    /// readable (or at end of file, or in error), given the watch (to pause or cancel it), until
    /// the returned watch is cancelled; `cancelled` runs there once after that, after the last
    /// `readable`. The descriptor stays the caller's: the loop never closes it, and the caller
    /// must not close it before `cancelled` ran. A watch made `paused` is not polled until
    /// ``DescriptorWatch/resume()``. On a stopped loop the watch is cancelled at once.
    public func watch(
        _ descriptor: Int32, paused: Bool = false,
        readable: @escaping @Sendable (DescriptorWatch) -> Void, cancelled: @escaping @Sendable () -> Void
    ) -> DescriptorWatch {
        let (watch, stopped) = state.withLock { state -> (DescriptorWatch, Bool) in
            state.lastWatch += 1
            let watch = DescriptorWatch(identifier: state.lastWatch, loop: self, readable: readable, cancelled: cancelled)
            if !state.stopped { state.watched[watch.identifier] = Watched(descriptor: descriptor, watch: watch, paused: paused) }
            return (watch, state.stopped)
        }
        if stopped {
            execute { cancelled() }
        } else if !paused {
            waker.wake()
        }
        return watch
    }

    func setPaused(_ paused: Bool, _ watch: DescriptorWatch) {
        let changed = state.withLock { state -> Bool in
            guard let watched = state.watched[watch.identifier], watched.paused != paused else { return false }
            state.watched[watch.identifier]?.paused = paused
            return true
        }
        if changed, !paused { waker.wake() }
    }

    func cancel(_ watch: DescriptorWatch) {
        let removed = state.withLock { state -> Bool in
            guard state.watched.removeValue(forKey: watch.identifier) != nil else { return false }
            state.cancelled.append(watch)
            return true
        }
        if removed { waker.wake() }
    }

    /// Lends `body` the loop's buffer for reads (64 KiB, made on first use): handlers run one at
    /// a time on the loop's thread, so one buffer serves them all, instead of one made for each
    /// readable event. Only on the loop's thread (it stops the process elsewhere), and not
    /// within itself.
    public func withReadBuffer<Result>(_ body: (inout [UInt8]) throws -> Result) rethrows -> Result {
        checkIsolated()
        if readBuffer.bytes.isEmpty { readBuffer.bytes = [UInt8](repeating: 0, count: 65536) }
        return try body(&readBuffer.bytes)
    }

    /// The buffer of ``withReadBuffer(_:)``.
    private final class ReadBuffer: @unchecked Sendable {
        // Invariant: only touched on the loop's thread (``withReadBuffer(_:)`` checks). Stored,
        // not `lazy`: an inout access to a lazy property goes through a copy, and the first
        // write to it then copies the whole buffer.
        var bytes: [UInt8] = []
    }

    /// Runs the cancellations of the watches cancelled so far (on the loop's thread).
    private func runCancellations() {
        let cancelled = state.withLock { state -> [DescriptorWatch] in
            defer { state.cancelled.removeAll() }
            return state.cancelled
        }
        for watch in cancelled { watch.cancelled() }
    }

    // MARK: Stopping

    /// Stops the loop for good: its thread runs what is queued and ends (see the type's comment
    /// for what happens to jobs enqueued later). Any thread may call it, the loop's own too.
    public func stop() {
        state.withLock { $0.stopped = true }
        waker.wake()
    }

    // MARK: The loop's thread

    private func submit(_ work: Work) {
        let (wake, startDrainer) = state.withLock { state -> (Bool, Bool) in
            state.queue.append(work)
            if state.keptByQueue == nil { state.keptByQueue = self }
            if state.draining {
                defer { state.sleeping = false }
                return (state.sleeping, false)
            }
            state.draining = true
            return (false, true)
        }
        if wake { waker.wake() }
        if startDrainer { LoopThread.start(name: name) { [self] in drainLate() } }
    }

    /// The loop's thread as it holds the loop: weakly, while it sleeps.
    private final class WeakLoop: @unchecked Sendable {
        // Invariant: set once, here; a weak reference is read atomically.
        weak var value: EventLoop?
        init(_ value: EventLoop) { self.value = value }
    }

    /// The loop: a batch of jobs and the cancelled watches' cancellations, then one `poll` over
    /// the source's socket and the watched descriptors (without waiting while jobs are queued),
    /// then the source's service and the ready watches' handlers; until stopped, or until no one
    /// holds the loop.
    private static func run(_ weakLoop: WeakLoop, state: Locked<State>, waker: Waker) {
        let current = pthread_self()
        state.withLock { $0.thread = current }
        var batch: [Work] = []
        var descriptors: [pollfd] = []
        var watches: [UInt64] = []
        while true {
            let wait: Wait?
            do {
                guard let loop = weakLoop.value else { return }
                // What the jobs queue runs in the same turn (a task's hops to an actor on this loop
                // and back), up to a bound, so that a packet waits for at most that many rounds.
                for _ in 0..<Self.roundsPerTurn {
                    guard loop.runBatch(&batch) else { break }
                }
                let (source, stopped) = state.withLock { ($0.source, $0.stopped) }
                if stopped {
                    state.withLock { state in
                        state.source = nil
                        state.cancelled += state.watched.values.map(\.watch)
                        state.watched = [:]
                    }
                    loop.runCancellations()
                    loop.drainLate()
                    return
                }
                loop.runCancellations()
                wait = source?.nextWait()
                if source != nil, wait == nil {
                    state.withLock { state in
                        if state.source === source { state.source = nil }
                    }
                }
            }
            descriptors.removeAll(keepingCapacity: true)
            watches.removeAll(keepingCapacity: true)
            if let wait, wait.socket >= 0 {
                descriptors.append(pollfd(fd: wait.socket, events: Int16(POLLIN) | (wait.writable ? Int16(POLLOUT) : 0), revents: 0))
            }
            let sourcePolled = !descriptors.isEmpty
            let sleep = state.withLock { state -> Bool in
                for (identifier, watched) in state.watched where !watched.paused {
                    descriptors.append(pollfd(fd: watched.descriptor, events: Int16(POLLIN), revents: 0))
                    watches.append(identifier)
                }
                state.sleeping = state.queue.isEmpty && state.cancelled.isEmpty && !state.stopped
                return state.sleeping
            }
            waker.sleep(watching: &descriptors, timeout: sleep ? wait?.deadline.map(SystemCall.milliseconds(until:)) ?? -1 : 0)
            state.withLock { $0.sleeping = false }
            if wait != nil, let source = state.withLock({ $0.source }) {
                var ready = Ready()
                if sourcePolled {
                    let events = descriptors[0].revents
                    ready.readable = events & Int16(POLLIN | POLLERR | POLLHUP) != 0
                    ready.writable = events & Int16(POLLOUT) != 0
                }
                source.serviceReady(ready)
            }
            let first = sourcePolled ? 1 : 0
            for (index, identifier) in watches.enumerated() where descriptors[first + index].revents != 0 {
                // Cancelled or paused since the poll (by an earlier handler, or another thread):
                // not served.
                let watch = state.withLock { state -> DescriptorWatch? in
                    guard let watched = state.watched[identifier], !watched.paused else { return nil }
                    return watched.watch
                }
                if let watch { watch.readable(watch) }
            }
        }
    }

    /// Runs what is queued until the queue is empty, then lets the thread end.
    private func drainLate() {
        let current = pthread_self()
        state.withLock { $0.thread = current }
        var batch: [Work] = []
        while true {
            let more = state.withLock { state -> Bool in
                guard state.queue.isEmpty else { return true }
                state.draining = false
                state.thread = nil
                return false
            }
            guard more else { return }
            runBatch(&batch)
        }
    }

    /// How many times a turn of the loop takes what is queued before it polls again.
    static let roundsPerTurn = 16

    /// Runs the jobs queued now, in order; false if there were none.
    @discardableResult
    private func runBatch(_ batch: inout [Work]) -> Bool {
        let kept = state.withLock { state -> EventLoop? in
            swap(&batch, &state.queue)
            defer { state.keptByQueue = nil }
            return state.keptByQueue
        }
        defer { withExtendedLifetime(kept) {} }
        guard !batch.isEmpty else { return false }
        let executor = asUnownedSerialExecutor()
        for work in batch {
            switch work {
            case .job(let job): job.runSynchronously(on: executor)
            case .closure(let body): body()
            }
        }
        batch.removeAll(keepingCapacity: true)
        return true
    }
}

/// What an ``EventLoop`` serves besides its jobs: a socket (the MQTT connection's), called on the
/// loop's thread only.
public protocol EventLoopSource: AnyObject, Sendable {
    /// What to wait for next; nil once the source is done (the loop forgets it).
    func nextWait() -> EventLoop.Wait?
    /// Serves what `poll` reported: the socket's readiness, or nothing when the deadline passed,
    /// the loop was woken, or jobs were queued.
    func serviceReady(_ ready: EventLoop.Ready)
}
