/// Reloads asked for (SIGHUP, `switchboard apply`) and the stop (SIGTERM, SIGINT), taken one at
/// a time by the daemon's serving loop: one reload runs at a time, and however many are asked for
/// while it runs, one more follows it, answering every `apply` that asked meanwhile (it reads the
/// file as it is after they asked). A stop goes before any pending reload; the callers still
/// waiting are told the daemon is stopping, and so is every caller after it.
struct ReloadRequests<Caller> {
    /// What the serving loop does next.
    enum Step {
        /// Reload once, then answer these callers with the outcome.
        case reload(answering: [Caller])
        /// Stop; tell these callers the daemon is stopping.
        case stop(answering: [Caller])
    }

    private var pending = false
    private var waiting: [Caller] = []
    /// Whether a stop was asked for: no reload runs after it.
    private(set) var stopping = false

    /// Asks for a reload, for `caller` (an `apply`) or for no one (SIGHUP).
    /// - Returns: false once stopping: the caller is to be told so at once.
    mutating func reload(answering caller: Caller?) -> Bool {
        guard !stopping else { return false }
        pending = true
        if let caller { waiting.append(caller) }
        return true
    }

    /// Asks for the stop.
    mutating func stop() { stopping = true }

    /// The next step, if any: the stop once asked for, else one reload covering every request so far.
    mutating func next() -> Step? {
        if stopping {
            defer {
                waiting = []
                pending = false
            }
            return .stop(answering: waiting)
        }
        guard pending else { return nil }
        defer {
            waiting = []
            pending = false
        }
        return .reload(answering: waiting)
    }
}
extension ReloadRequests: Sendable where Caller: Sendable {}
