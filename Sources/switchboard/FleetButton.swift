import SwitchboardCore
import SwitchboardConfiguration

/// A push-button of a node, as the node keeps it retained on `<base>/buttons`: the placement
/// each press performs, and the last press seen while the picture is followed.
struct FleetButton: Sendable, Codable, Equatable {
    var id: String
    var short: String?
    var double: String?
    var long: String?
    /// The last press seen (`--follow` only: presses are not retained).
    var lastPress: Press?

    struct Press: Sendable, Codable, Equatable {
        /// `short`, `double` or `long`.
        var click: String
        /// What it performed (`porch On`), absent when nothing is bound to that press.
        var performed: String?
    }

    /// The buttons of a node's `<base>/buttons` payload, their texts sanitised; nil if it is not
    /// such a list (an empty payload: the node has none).
    static func list(_ payload: [UInt8]) -> [FleetButton]? {
        if payload.isEmpty { return [] }
        guard case .array(let elements)? = RemoteText.json(payload) else { return nil }
        return elements.compactMap { element in
            guard case .object = element, case .string(let id)? = element["id"] else { return nil }
            return FleetButton(id: id, short: element.text("short"), double: element.text("double"), long: element.text("long"))
        }
    }

    /// A press from a node's `<base>/buttons/<id>` payload, sanitised.
    static func press(_ payload: [UInt8]) -> Press? {
        guard let value = RemoteText.json(payload), let click = value.text("click") else { return nil }
        return Press(click: click, performed: value.text("performed"))
    }

    /// `button hall: short → porch, double → fan; last press: double (fan On)`, as `status` words it.
    var line: String {
        let bound = [("short", short), ("double", double), ("long", long)].compactMap { name, placement in placement.map { "\(name) → \($0)" } }
        var text = "button \(id): " + (bound.isEmpty ? "performs nothing" : bound.joined(separator: ", "))
        if let lastPress { text += "; last press: \(lastPress.click)" + (lastPress.performed.map { " (\($0))" } ?? "") }
        return text
    }
}

private extension JSONValue {
    func text(_ key: String) -> String? {
        if case .string(let text)? = self[key] { text } else { nil }
    }
}
