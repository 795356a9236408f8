import SwitchboardSupport
import SwitchboardConfiguration

/// The transactions of commands the node took on its `/set` topics, so that each is performed at
/// most once: a command whose transaction arrives again (a replay, a resend, a fleet node's retry)
/// is not performed again; while the first is on its way it is dropped, and once that one is
/// answered the repeat gets the same `/result` again. Remembered for ``lifetime`` and at most
/// ``memory`` of them (the oldest go first), in arrival order. A plain state machine on the
/// instants it is given.
struct PerformedTransactions: Sendable {
    /// How long a transaction is remembered.
    static let lifetime: Duration = .seconds(600)
    /// How many transactions are remembered at most.
    static let memory = 1_024

    /// What to do with a command that carries a transaction.
    enum Arrival: Equatable, Sendable {
        /// Never seen (or forgotten): perform it.
        case new
        /// Taken already and not answered yet: its answer will do for this one too.
        case inFlight
        /// Performed (or refused, or replaced) already: this was its `/result`.
        case answered([UInt8])
    }

    private struct Entry: Sendable {
        let at: OffsetInstant
        var result: [UInt8]?
    }

    private var entries: [String: Entry] = [:]
    /// The keys in arrival order, for expiry and the bound.
    private var order: [String] = []

    init() {}

    /// The key of a control's transaction: a transaction names a command to one control.
    static func key(control: String, transaction: JSONValue) -> String { control + "\u{0}" + transaction.jsonLine }

    /// A command carrying the transaction `key` arrived; it is remembered if it is new.
    mutating func arrived(_ key: String, at now: OffsetInstant) -> Arrival {
        expire(now)
        if let entry = entries[key] { return entry.result.map(Arrival.answered) ?? .inFlight }
        entries[key] = Entry(at: now, result: nil)
        order.append(key)
        if order.count > Self.memory {
            let evicted = order.removeFirst()
            entries[evicted] = nil
        }
        return .new
    }

    /// The command arrived but was not taken yet (it is taken again in its turn).
    mutating func forget(_ key: String) {
        guard entries.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }

    /// The command with transaction `key` was answered with `result`.
    mutating func answered(_ key: String, result: [UInt8]) {
        entries[key]?.result = result
    }

    /// How many transactions are remembered now.
    var count: Int { entries.count }

    private mutating func expire(_ now: OffsetInstant) {
        var expired = 0
        while expired < order.count, let entry = entries[order[expired]], entry.at.duration(to: now) > Self.lifetime {
            entries[order[expired]] = nil
            expired += 1
        }
        if expired > 0 { order.removeFirst(expired) }
    }
}
