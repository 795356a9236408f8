import ControlKitCore
import SwitchboardConfiguration

extension AutomationService {
    /// Follows `center`'s presentations and `buttons`' presses, and runs the automations they
    /// start, until cancelled. The values the placements show when it starts start nothing, nor
    /// does a control's first value after it was stale (unknown, offline).
    public func run(following center: ControlCenter, buttons: [ButtonService]) async {
        let observation = center.observeChanges { [weak self] change in
            switch change {
            case .presentation(let presentation):
                guard let id = presentation.id else { return }
                self?.valueChanged(id, to: Self.value(presentation), text: presentation.valueText)
            case .removed(let id):
                self?.valueChanged(id, to: nil)
            case .locked:
                break
            }
        }
        let presses = buttons.map { button in
            let id = button.settings.id
            return button.clicks.observe { [weak self] element in
                guard let press = AutomationTrigger.ButtonPress(rawValue: element.click) else { return }
                self?.pressed(id, press)
            }
        }
        defer {
            observation.end()
            for press in presses { press.end() }
        }
        await run { placement in (try? await center.presentation(of: placement)).flatMap(Self.value) }
    }

    /// The value a presentation shows, nil when it is stale: a stale control shows its last
    /// value, or Off for one whose state never came (another system's device before its first
    /// message), and neither is a value to start an automation from.
    static func value(_ presentation: ControlPresentation) -> Bool? { presentation.stale ? nil : presentation.value }
}
