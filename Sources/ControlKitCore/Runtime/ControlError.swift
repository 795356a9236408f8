/// Why the runtime refused or could not do something with a control. Surfaces announce these:
/// ``description`` names the control, what was expected, and what to do.
public struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, Codable {
        /// No control of that kind is registered.
        case unknownKind
        /// No placement has that identifier.
        case unknownPlacement
        /// A placement with that identifier exists already.
        case duplicatePlacement
        /// The control needs configuring before it can perform.
        case needsConfiguration
        /// A configuration names a parameter or value that does not exist.
        case invalidConfiguration
        /// The action needs Switchboard unlocked or an authenticated caller.
        case authenticationRequired
        /// The request does not fit the control (a press for a toggle, a value for a button).
        case wrongRequest
        /// The intent's `perform()` threw.
        case performFailed
        /// The control has never rendered successfully, so it has no action yet.
        case unavailable
        /// The request waited for its turn longer than its deadline and was dropped, not performed.
        case expired
        /// The control's template is disabled (`disabled(true)`): it does not perform until its
        /// template enables it again.
        case disabled
        /// A newer command to the same control arrived while the request waited for its turn: it
        /// was dropped, not performed.
        case superseded
    }

    /// What went wrong.
    public var code: Code
    /// The control's kind, where known.
    public var kind: String?
    /// The placement's identifier, where known.
    public var placement: String?
    /// The particulars: what was expected, what the underlying error said.
    public var detail: String

    public init(_ code: Code, kind: String? = nil, placement: String? = nil, detail: String) {
        self.code = code
        self.kind = kind
        self.placement = placement
        self.detail = detail
    }

    /// A find asked of a control with no entity parameter whose query is an ``EntityPropertyQuery``.
    static func notSearchable(kind: String) -> ControlError {
        ControlError(.wrongRequest, kind: kind, detail: "it has no parameter whose entities can be found by their properties (an AppIntentControlConfiguration whose entity's query is an EntityPropertyQuery)")
    }

    public var description: String {
        let subject = placement.map { "control \"\($0)\"" } ?? kind.map { "control kind \"\($0)\"" } ?? "control"
        switch code {
        case .unknownKind: return "\(subject): no such control kind; \(detail)"
        case .unknownPlacement: return "\(subject): no such placed control; \(detail)"
        case .duplicatePlacement: return "\(subject): already placed; \(detail)"
        case .needsConfiguration: return "\(subject) needs configuring: \(detail)"
        case .invalidConfiguration: return "\(subject): invalid configuration: \(detail)"
        case .authenticationRequired: return "\(subject) requires authentication: \(detail)"
        case .wrongRequest: return "\(subject): \(detail)"
        case .performFailed: return "\(subject) failed: \(detail)"
        case .unavailable: return "\(subject) is unavailable: \(detail)"
        case .expired: return "\(subject): too late: \(detail)"
        case .disabled: return "\(subject) is disabled: \(detail)"
        case .superseded: return "\(subject): replaced: \(detail)"
        }
    }
}
