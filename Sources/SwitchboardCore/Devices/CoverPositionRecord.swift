/// A blind's position at rest as the state file keeps it, so that a restart knows where it is.
/// It is written when the motor stops and removed when it starts, so a daemon that died while
/// the blind moved finds no position (unknown until an end stop or a full travel).
public struct CoverPositionRecord: Sendable, Codable, Equatable {
    /// Percent open, 0 closed, 100 open.
    public var position: Int
    /// The relays that ran it: a cover given other relays under the same id starts unknown.
    public var open: String
    public var close: String

    public init(position: Int, open: String, close: String) {
        self.position = position
        self.open = open
        self.close = close
    }
}
