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
/// thread, it runs after the jobs before it, before the loop sleeps again. Between two batches of
/// jobs the loop polls its socket without waiting, so that neither starves the other.
///
/// Nothing that blocks may run on the loop: while it runs, no job and no packet is served.
///
/// ``stop()`` is one way: the loop's thread runs the jobs already queued, forgets its source and
/// ends. A job enqueued after that is not lost: a new thread of the loop's is started for it,
/// runs it and whatever was queued behind it, in order and one at a time as before, and ends once
/// the queue is empty. (A task that had its continuation on the loop still resumes; dropping the
/// job would leave it suspended for ever.) Nothing is polled any more.
///
/// A loop that no one holds any more ends as well: its thread holds it only while it runs jobs or
/// serves its source, and queued work holds it until it ran (an actor's job holds the actor,
/// which holds its loop), so a loop nothing refers to has nothing left to run.
public final class EventLoop: SerialExecutor, @unchecked Sendable {
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
    }

    private let state = Locked(State())
    private let waker: Waker
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

    /// The loop: a batch of jobs, then the source's wait (without waiting while jobs are queued),
    /// then what the source has to serve; until stopped, or until no one holds the loop.
    private static func run(_ weakLoop: WeakLoop, state: Locked<State>, waker: Waker) {
        let current = pthread_self()
        state.withLock { $0.thread = current }
        var batch: [Work] = []
        while true {
            let wait: Wait?
            do {
                guard let loop = weakLoop.value else { return }
                loop.runBatch(&batch)
                let (source, stopped) = state.withLock { ($0.source, $0.stopped) }
                if stopped {
                    state.withLock { $0.source = nil }
                    loop.drainLate()
                    return
                }
                wait = source?.nextWait()
                if source != nil, wait == nil {
                    state.withLock { state in
                        if state.source === source { state.source = nil }
                    }
                }
            }
            let sleep = state.withLock { state -> Bool in
                state.sleeping = state.queue.isEmpty && !state.stopped
                return state.sleeping
            }
            let ready = waker.sleep(socket: wait?.socket ?? -1, writable: wait?.writable ?? false, until: wait?.deadline, now: !sleep)
            state.withLock { $0.sleeping = false }
            if wait != nil, let source = state.withLock({ $0.source }) { source.serviceReady(ready) }
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

    /// Runs the jobs queued now, in order.
    private func runBatch(_ batch: inout [Work]) {
        let kept = state.withLock { state -> EventLoop? in
            swap(&batch, &state.queue)
            defer { state.keptByQueue = nil }
            return state.keptByQueue
        }
        defer { withExtendedLifetime(kept) {} }
        guard !batch.isEmpty else { return }
        let executor = asUnownedSerialExecutor()
        for work in batch {
            switch work {
            case .job(let job): job.runSynchronously(on: executor)
            case .closure(let body): body()
            }
        }
        batch.removeAll(keepingCapacity: true)
    }
}

/// What an ``EventLoop`` serves besides its jobs: a socket (the MQTT connection's), called on the
/// loop's thread only.
public protocol EventLoopSource: AnyObject, Sendable {
    /// What to wait for next; nil once the source is done (the loop forgets it).
    func nextWait() -> EventLoop.Wait?
    /// Serves what `poll` reported: the socket's readiness, or nothing when the deadline passed,
    /// the loop was woken, or jobs were queued.
    func serviceReady(_ ready: Waker.Ready)
}
