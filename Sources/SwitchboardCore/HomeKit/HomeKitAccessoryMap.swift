/// The ids HomeKit knows each placement's accessory by: an `aid` per placement and an `iid` per
/// service and characteristic of it, by name. Ids are given once and never move for the same
/// placement (across restarts and reloads); a new placement gets a new `aid`, and the `aid` of a
/// removed one is never given again (a Home would take the new accessory for the old one).
public struct HomeKitAccessoryMap: Codable, Sendable, Equatable {
    /// One placement's accessory.
    public struct Entry: Codable, Sendable, Equatable {
        public var aid: Int
        /// Each service's and characteristic's iid, by a name such as `Lightbulb.On`.
        public var iids: [String: Int] = [:]
        /// The next iid to give.
        public var nextIID = 1
    }

    /// The bridge itself is accessory 1.
    public static let bridgeAID = 1

    /// The accessories given so far, by placement id (removed placements too: their ids stay taken).
    public private(set) var entries: [String: Entry] = [:]
    /// The next aid to give.
    public private(set) var nextAID = 2
    /// What the served accessories looked like when the configuration number was last set: their
    /// ids and types, so that a change is noticed.
    public var layout = ""

    public init() {}

    /// The aid of a placement's accessory, given now if it has none.
    public mutating func aid(for placement: String) -> Int {
        if let entry = entries[placement] { return entry.aid }
        let aid = nextAID
        nextAID += 1
        entries[placement] = Entry(aid: aid)
        return aid
    }

    /// The iid of a service or characteristic (by its name) of a placement's accessory, given now
    /// if it has none.
    public mutating func iid(_ name: String, of placement: String) -> Int {
        _ = aid(for: placement)
        if let iid = entries[placement]?.iids[name] { return iid }
        let iid = entries[placement]!.nextIID
        entries[placement]!.nextIID += 1
        entries[placement]!.iids[name] = iid
        return iid
    }
}
