import ControlKitCore
import SwitchboardConfiguration

/// A cover's controls: `<id>`, a toggle that is on while the cover is open (or partly open) and
/// opens or closes it, its value text saying what it does ("Opening… 40 %"); and `<id>-stop`,
/// a button that stops it. They perform through the control center like any control.
public enum CoverControls {
    public static func definitions(_ configuration: SwitchboardConfiguration, covers: CoverService) -> [ControlDefinition] {
        configuration.covers.flatMap { cover -> [ControlDefinition] in
            let garage = if case .pulse = cover.drive { true } else { false }
            let symbols = garage ? ("door.garage.open", "door.garage.closed") : ("blinds.vertical.open", "blinds.vertical.closed")
            let policy: IntentAuthenticationPolicy = cover.requiresAuthentication ? .requiresAuthentication : .alwaysAllowed
            let toggle = ControlDefinition(kind: cover.toggleKind, displayName: cover.name, description: "Opens and closes \(cover.name)", isConfigurable: false, parameters: { [] }) { mode, _ in
                let reading = mode == .preview ? CoverService.Reading(state: .closed, position: 0) : covers.reading(cover.id)
                guard let reading else { throw ControlError(.unavailable, kind: cover.toggleKind, detail: "\(cover.name) is not running") }
                let isOn = reading.state != .closed && reading.state != .closing
                let on = ResolvedLabel(symbol: symbols.0, text: reading.text, actionHint: "Close", status: nil)
                let off = ResolvedLabel(symbol: symbols.1, text: reading.text, actionHint: "Open", status: nil)
                return TemplateSnapshot(title: cover.name, style: .toggle(isOn: isOn, on: on, off: off), action: ControlAction(title: cover.name, authenticationPolicy: policy) { newValue in
                    let said = try await covers.perform(cover.id, (newValue ?? !isOn) ? .open : .close)
                    return .result(dialog: IntentDialog(stringLiteral: said))
                })
            }
            let stop = ControlDefinition(kind: cover.stopKind, displayName: "Stop \(cover.name)", description: "Stops \(cover.name)", isConfigurable: false, parameters: { [] }) { _, _ in
                let label = ResolvedLabel(symbol: "stop.circle", text: "Stop \(cover.name)", actionHint: nil, status: nil)
                return TemplateSnapshot(title: "Stop \(cover.name)", style: .button(label), action: ControlAction(title: "Stop \(cover.name)", authenticationPolicy: policy) { _ in
                    let said = try await covers.perform(cover.id, .stop)
                    return .result(dialog: IntentDialog(stringLiteral: said))
                })
            }
            return [toggle, stop]
        }
    }
}
