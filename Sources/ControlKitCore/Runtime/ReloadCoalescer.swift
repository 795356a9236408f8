/// Coalesces reload requests per key (a control kind): while a key's reload is in flight, any
/// number of further requests cost exactly one more reload, run after the current one.
public struct ReloadCoalescer<Key: Hashable & Sendable>: Sendable {
    /// What to do with a request.
    public enum RequestAction: Sendable, Equatable {
        /// Nothing is in flight: reload now.
        case startReload
        /// A reload is in flight: one more will follow it.
        case coalesced
    }

    /// What to do when a reload finishes.
    public enum FinishAction: Sendable, Equatable {
        /// Requests arrived while it ran: reload once more.
        case reloadAgain
        /// Nothing more to do.
        case idle
    }

    /// Keys in flight, and whether another reload is owed.
    private var inFlight: [Key: Bool] = [:]

    public init() {}

    /// Records a request for `key`.
    public mutating func request(_ key: Key) -> RequestAction {
        if inFlight[key] != nil {
            inFlight[key] = true
            return .coalesced
        }
        inFlight[key] = false
        return .startReload
    }

    /// Records that the reload of `key` finished.
    public mutating func finished(_ key: Key) -> FinishAction {
        guard let pending = inFlight[key] else { return .idle }
        if pending {
            inFlight[key] = false
            return .reloadAgain
        }
        inFlight[key] = nil
        return .idle
    }

    /// Whether a reload of `key` is in flight.
    public func isReloading(_ key: Key) -> Bool { inFlight[key] != nil }
}
