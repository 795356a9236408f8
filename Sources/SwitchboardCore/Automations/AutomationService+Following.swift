import ControlKitCore

extension AutomationService {
    /// Follows `center`'s presentations and `buttons`' presses, and runs the automations they
    /// start, until cancelled. The values the placements show when it starts start nothing.
    public func run(following center: ControlCenter, buttons: [ButtonService]) async {
        let observation = center.observeChanges { [weak self] change in
            switch change {
            case .presentation(let presentation):
                guard let id = presentation.id else { return }
                self?.valueChanged(id, to: presentation.value, text: presentation.valueText)
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
        await run { placement in try? await center.presentation(of: placement).value }
    }
}
