/// Receives the push tokens of the placed controls whose configuration names it with
/// `pushHandler(_:)`.
///
/// Mirrors WidgetKit's `ControlPushHandler`. On Switchboard a control's push token is its MQTT
/// push address: a message published to `<base>/push/<token>` (the token as UTF-8 text) reloads
/// exactly that placed control, as an APNs push reloads a control on iOS. Tokens are the
/// placements' identifiers, so they stay the same across restarts. The handler is created and
/// told every time a control that names it is placed (at every start too), configured or
/// removed, with all such controls.
public protocol ControlPushHandler {
    init()
    /// The push information of every placed control that names this handler.
    func pushTokensDidChange(controls: [ControlInfo])
}

extension ControlWidgetConfiguration {
    /// Opts the control into push reloads: `pushHandlerType` is told its controls' push tokens.
    public func pushHandler(_ pushHandlerType: any ControlPushHandler.Type) -> ModifiedControlConfiguration<Self> {
        let handler = ControlPushHandlerType(pushHandlerType)
        return ModifiedControlConfiguration(base: self) { $0.pushHandler = handler }
    }
}

/// A push handler's type, as a control definition keeps it.
public struct ControlPushHandlerType: @unchecked Sendable, Hashable {
    // Unchecked: a metatype is immutable; each `tell` makes a handler of its own, used once, on
    // the caller's side (Apple's protocol is not Sendable, and Swift 6.0 has no SendableMetatype).
    private enum Handler {
        case type(any ControlPushHandler.Type)
        case relay(@Sendable ([ControlInfo]) async -> Void)
    }
    private let handler: Handler
    private let identifier: String

    init(_ type: any ControlPushHandler.Type) {
        handler = .type(type)
        identifier = "\(ObjectIdentifier(type))"
    }

    /// A handler in another process: a daemon relays a control extension's controls' tokens to the
    /// extension, whose own handler type is told there.
    /// - Parameter identifier: unique per handler: controls with the same one are told together.
    public init(relayingAs identifier: String, to relay: @escaping @Sendable ([ControlInfo]) async -> Void) {
        handler = .relay(relay)
        self.identifier = "relay " + identifier
    }

    /// Creates a handler and tells it the tokens.
    func tell(_ controls: [ControlInfo]) async {
        switch handler {
        case .type(let type): type.init().pushTokensDidChange(controls: controls)
        case .relay(let relay): await relay(controls)
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
