/// A command to a control center, as one JSON object per line: what the CLI sends the daemon's
/// socket and what the daemon sends a control extension's standard input.
///
/// `{"op":"perform","id":"porch","request":"toggle"}`, `{"op":"gallery"}`, `{"op":"lock"}`.
public struct ControlCommand: Sendable, Codable, Hashable {
    /// What to do.
    public enum Operation: String, Sendable, Codable, CaseIterable {
        case gallery, center, place, configure, remove, perform, reload, lock, unlock, status, parameters
        /// The choices of a kind's parameter that ``ControlCommand/find`` selects.
        case find
        /// A control extension renders a kind for a configuration (daemon to extension only).
        case snapshot
        /// A control extension performs a kind's action for a configuration; the daemon has
        /// already allowed it (daemon to extension only).
        case act
        /// A control extension's push handler is told the placements of a kind, all of them,
        /// whose tokens the daemon serves (daemon to extension only).
        case pushTokens
    }

    public var op: Operation
    /// The placement, for `configure`, `remove`, `perform`.
    public var id: String?
    /// The control kind, for `place`, `parameters`, `reload`.
    public var kind: String?
    /// The space and size, for `place`.
    public var space: ControlSpace?
    public var size: ControlSize?
    /// The configuration, for `place` and `configure`.
    public var configuration: [String: String]?
    /// `on`, `off`, `toggle` or `press`, for `perform`.
    public var request: String?
    /// Whether the sender is authenticated (only a trusted parent sets this; see ``ControlCommandHandler``).
    public var authenticated: Bool?
    /// A number the reply carries back, so that a daemon may have many commands in flight to one
    /// extension; commands without one are answered in order.
    public var call: Int?
    /// For `snapshot`: render the preview value instead of the current one.
    public var preview: Bool?
    /// For `act`: a toggle's new state (absent for a button).
    public var value: Bool?
    /// For `pushTokens`: the placements of the kind.
    public var placements: [ControlPlacement]?
    /// For `find`: the conditions, sort keys and limit.
    public var find: EntityFind?

    public init(
        _ op: Operation, id: String? = nil, kind: String? = nil, space: ControlSpace? = nil, size: ControlSize? = nil,
        configuration: [String: String]? = nil, request: String? = nil, authenticated: Bool? = nil,
        call: Int? = nil, preview: Bool? = nil, value: Bool? = nil, placements: [ControlPlacement]? = nil,
        find: EntityFind? = nil
    ) {
        self.op = op
        self.id = id
        self.kind = kind
        self.space = space
        self.size = size
        self.configuration = configuration
        self.request = request
        self.authenticated = authenticated
        self.call = call
        self.preview = preview
        self.value = value
        self.placements = placements
        self.find = find
    }
}

/// The answer to a ``ControlCommand``: `ok` and what was asked for, or the error.
public struct ControlReply: Sendable, Codable, Hashable {
    /// What went wrong, in a form a user can act on.
    public struct Failure: Error, Sendable, Codable, Hashable, CustomStringConvertible {
        public var code: String
        public var message: String
        public var description: String { message }

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var ok: Bool
    /// The command's ``ControlCommand/call``, if it had one.
    public var call: Int?
    public var error: Failure?
    /// For `snapshot`: the rendered template.
    public var snapshot: ControlSnapshot?
    public var presentation: ControlPresentation?
    public var presentations: [ControlPresentation]?
    public var gallery: [ControlGalleryItem]?
    public var parameters: [ControlParameter]?
    public var dialog: String?
    public var locked: Bool?

    public init(ok: Bool = true) { self.ok = ok }

    /// A failed reply.
    public static func failure(code: String, message: String) -> ControlReply {
        var reply = ControlReply(ok: false)
        reply.error = Failure(code: code, message: message)
        return reply
    }
}

