/// A cover: a roller blind or shutter driven by two interlocked relays, or a garage door driven
/// by one pulse and seen by reed switches. Its controls are `<id>` (a toggle: open or closed)
/// and `<id>-stop` (a button), placed like any control.
public struct CoverSettings: PositionedSettings {
    /// Its index in its devices.json array, for messages.
    public var position = 0
    public var id: String
    public var name: String

    /// How the cover is moved.
    public enum Drive: Sendable, Equatable {
        /// A motor with a relay for each direction (in one interlock), and the calibrated time a
        /// full travel takes each way.
        case motor(open: String, close: String, openTime: Duration, closeTime: Duration)
        /// An opener pulsed once to move (or stop) the door, which takes `travelTime` end to end.
        case pulse(device: String, travelTime: Duration)
    }

    public var drive: Drive
    /// The input active when the cover is fully open (an end stop, a reed switch), if any.
    public var opened: String?
    /// The input active when the cover is fully closed, if any.
    public var closed: String?
    /// Home Assistant's cover device class: `blind` by default for a motor, `garage` for a pulse.
    public var deviceClass: String
    /// Whether its commands need Switchboard unlocked or an authenticated caller (the local CLI)
    /// while locked; by default a garage door's do, a blind's do not.
    public var requiresAuthentication: Bool = false

    /// The control kinds the cover brings: its toggle and its stop button.
    public var toggleKind: String { id }
    public var stopKind: String { id + "-stop" }

    /// The devices the cover drives and reads.
    public var devices: [String] {
        let outputs: [String] = switch drive {
        case .motor(let open, let close, _, _): [open, close]
        case .pulse(let device, _): [device]
        }
        return outputs + [opened, closed].compactMap { $0 }
    }
}
