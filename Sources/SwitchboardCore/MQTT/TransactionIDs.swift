import SwitchboardSupport

/// Transaction ids for the commands a node sends to controls on other nodes:
/// `<client id>-<run>-<n>`, where `run` is drawn at random when the process starts and `n` counts
/// over the process's whole life (a reload does not restart it). No id is given twice, across
/// reloads and restarts alike, so a `/result` that comes late, after the command that asked gave
/// up, can answer no other command.
final class TransactionIDs: Sendable {
    /// The process's ids: one count for every configuration it serves.
    static let process = TransactionIDs()

    /// This process's random part: 16 hexadecimal digits.
    let run: String
    // Invariant: only touched under the mutex.
    private let count = Locked<UInt64>(0)

    init(run: String = TransactionIDs.randomRun()) {
        self.run = run
    }

    /// The next transaction id for a node connected as `clientID`.
    func next(for clientID: String) -> String {
        let number = count.withLock { count -> UInt64 in
            count += 1
            return count
        }
        return "\(clientID)-\(run)-\(number)"
    }

    /// Whether `transaction` has the form of the ids a node connected as `clientID` gives (this
    /// process's or another run's).
    static func isOwn(_ transaction: String, clientID: String) -> Bool { transaction.hasPrefix(clientID + "-") }

    /// 64 random bits (the system's generator: getrandom), as 16 hexadecimal digits.
    static func randomRun() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
