/// When a socket connection has been idle too long: no request being answered, and no complete
/// request for `timeout` since the last one was answered (or since it opened). Bytes of a request
/// that never ends are no activity, so a client cannot hold its place by dribbling them; a request
/// that takes long to answer (a simulated press) is activity for as long as it is answered.
struct IdleDeadline<Instant: InstantProtocol> where Instant.Duration == Duration {
    let timeout: Duration
    /// When the connection last became idle.
    private(set) var idleSince: Instant
    /// Whether a request is being answered now.
    private(set) var answering = false

    init(timeout: Duration, openedAt now: Instant) {
        self.timeout = timeout
        idleSince = now
    }

    /// A complete request arrived: the connection is busy until it is answered.
    mutating func requestArrived() { answering = true }

    /// The request's reply is ready at `now`: the idle time starts again (waiting for the client
    /// to take the reply is idle time).
    mutating func answered(at now: Instant) {
        answering = false
        idleSince = now
    }

    /// What the watcher does at `now`.
    enum Action: Equatable {
        /// Close the connection: it has been idle for `timeout`.
        case close
        /// Look again at this instant.
        case waitUntil(Instant)
    }

    func check(at now: Instant) -> Action {
        // While answering, the earliest it can expire is a whole timeout after now.
        guard !answering else { return .waitUntil(now.advanced(by: timeout)) }
        let deadline = idleSince.advanced(by: timeout)
        return deadline <= now ? .close : .waitUntil(deadline)
    }
}
