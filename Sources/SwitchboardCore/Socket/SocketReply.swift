import ControlKit

/// A reply on the daemon's socket: a control reply, plus what only the daemon knows.
public struct SocketReply: Sendable, Codable, Equatable {
    /// An output device and its value, as read from its line.
    public struct DeviceValue: Sendable, Codable, Equatable {
        public var id: String
        public var value: Bool
    }

    public var ok: Bool
    public var error: ControlReply.Failure?
    public var presentation: ControlPresentation?
    public var presentations: [ControlPresentation]?
    public var gallery: [ControlGalleryItem]?
    public var parameters: [ControlParameter]?
    public var dialog: String?
    public var locked: Bool?
    /// The node's name, for `status`.
    public var node: String?
    /// Output devices and their values, for `status` and `devices`.
    public var devices: [DeviceValue]?
    /// What an Action button announced, for `button`.
    public var announcements: [String]?

    public init(_ reply: ControlReply) {
        ok = reply.ok
        error = reply.error
        presentation = reply.presentation
        presentations = reply.presentations
        gallery = reply.gallery
        parameters = reply.parameters
        dialog = reply.dialog
        locked = reply.locked
    }

    public static func failure(code: String, message: String) -> SocketReply {
        SocketReply(.failure(code: code, message: message))
    }
}
