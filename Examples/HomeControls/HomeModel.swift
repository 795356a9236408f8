import ControlKit
import Synchronization

/// The example's home: lights, a sprinkler and a garage door, kept in memory. On a board this
/// would be relays; here it lets the example run anywhere and lets tests make it fail.
public final class HomeModel: Sendable {
    /// The home the example's controls act on.
    public static let shared = HomeModel()

    struct State {
        var lights: [String: Bool] = ["porch": false, "kitchen": false, "hall": false]
        var sprinklerRunning = false
        var garageDoorPresses = 0
        var unreachable = false
    }

    // Invariant: every read and write goes through the mutex.
    private let state = Mutex(State())

    /// The lights people can choose from, in a stable order.
    public static let lights: [LightEntity] = [
        LightEntity(id: "porch", name: "Porch Light"),
        LightEntity(id: "kitchen", name: "Kitchen Light"),
        LightEntity(id: "hall", name: "Hall Light"),
    ]

    /// Whether a light is on; throws while the home is unreachable.
    public func isLightOn(_ id: String) throws -> Bool {
        try state.withLock { state in
            if state.unreachable { throw HomeUnreachable() }
            return state.lights[id] ?? false
        }
    }

    public func setLight(_ id: String, on: Bool) throws {
        try state.withLock { state in
            if state.unreachable { throw HomeUnreachable() }
            state.lights[id] = on
        }
    }

    public var isSprinklerRunning: Bool { state.withLock { $0.sprinklerRunning } }
    public func setSprinkler(running: Bool) { state.withLock { $0.sprinklerRunning = running } }

    public var garageDoorPresses: Int { state.withLock { $0.garageDoorPresses } }
    public func pressGarageDoor() { state.withLock { $0.garageDoorPresses += 1 } }

    /// Makes every light read and write fail, as a hub that went offline would.
    public func setUnreachable(_ unreachable: Bool) { state.withLock { $0.unreachable = unreachable } }

    /// Puts everything back as it was at start.
    public func reset() { state.withLock { $0 = State() } }
}

/// The error a light read or write throws while the hub is offline.
public struct HomeUnreachable: Error, CustomStringConvertible {
    public var description: String { "the lighting hub is unreachable" }
}
