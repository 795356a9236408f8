/// The values one controller wrote whose change has not come back yet, so that the controller is
/// not told of the value it wrote (HAP sends a characteristic's event to every subscribed
/// controller but the one that changed it).
///
/// While a write is in flight the server leaves its characteristics out of that connection's
/// events altogether. A device whose change reaches the bridge after the write was answered (a
/// relay that reports once it switched, another system's device that confirms over MQTT) would
/// still send the writer an event of its own value; this remembers each value written
/// successfully until the first change of that characteristic: a change to the same value is the
/// write's own and is left out once, a change to another value is news and goes out (and the
/// entry goes with it).
struct HAPWrittenValues: Sendable {
    private var values: [HAPCharacteristicID: HAPJSON] = [:]

    /// How many values wait for their change.
    var count: Int { values.count }

    /// Notes the answered writes: those that succeeded wait for their change; a failed one's
    /// value is not the characteristic's, so nothing of it is left out.
    mutating func note(_ writes: [HAPCharacteristicWrite], _ statuses: [HAPStatus]) {
        for (index, write) in writes.enumerated() {
            values[write.id] = index < statuses.count && statuses[index] == .success ? write.value : nil
        }
    }

    /// The changes this controller is to be told of: `changes` without the values it wrote.
    mutating func news(in changes: [HAPCharacteristicID: HAPJSON]) -> [HAPCharacteristicID: HAPJSON] {
        guard !values.isEmpty else { return changes }
        var news = changes
        for (id, value) in changes {
            guard let written = values.removeValue(forKey: id) else { continue }
            if Self.same(written, value) { news[id] = nil }
        }
        return news
    }

    /// Whether a written value and a reported one are the same: a bool characteristic may be
    /// written as 1 and reported as true.
    static func same(_ written: HAPJSON, _ reported: HAPJSON) -> Bool {
        if written == reported { return true }
        if case .bool = reported, let bool = written.boolValue { return bool == reported.boolValue }
        if case .bool = written, let bool = reported.boolValue { return bool == written.boolValue }
        return false
    }
}
