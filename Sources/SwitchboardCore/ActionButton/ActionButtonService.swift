import ControlKitCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardConfiguration

/// A push-button on a GPIO input acting as an Action button for one placed control: press to hear
/// the hint, hold to perform. Runs ``HoldToPerform`` on the line's debounced edges.
public final class ActionButtonService: Sendable {
    public let settings: ActionButtonSettings
    let chip: any GPIOChip
    let line: any GPIOLineRequest
    let center: ControlCenter
    let clock: AnyClock
    let input: DebouncedInput
    /// Every announcement, for announcers and for `switchboard button`.
    public let announcements = Broadcast<ActionButtonAnnouncement>()

    private enum Event: Sendable {
        case edge(GPIOEdgeEvent)
        case check(at: Duration)
        case finished
    }

    /// Requests the button's input line.
    /// - Throws: ``GPIOError`` if the line cannot be requested.
    public init(settings: ActionButtonSettings, chip: any GPIOChip, center: ControlCenter, clock: some Clock<Duration> = ContinuousClock()) throws {
        self.settings = settings
        self.chip = chip
        self.center = center
        self.clock = AnyClock(clock)
        (line, input) = try settings.gpio.requestInput(on: chip, clock: clock)
    }

    /// Gives the line back.
    public func release() { line.release() }

    /// Runs until the line is released or the task is cancelled.
    public func run() async {
        let input = self.input
        var machine = HoldToPerform(holdTime: settings.holdTime, settleWindow: settings.gpio.debounce)
        let (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await input.run { edge in sink.yield(.edge(edge)) }
                sink.finish()
            }
            for await event in events {
                let actions: [HoldToPerform.Action]
                switch event {
                case .edge(let edge) where edge.value:
                    actions = await pressed(edge, machine: &machine)
                case .edge(let edge):
                    actions = machine.release(at: edge.timestamp)
                case .check(let timestamp):
                    actions = machine.check(at: timestamp)
                case .finished:
                    machine.performFinished()
                    actions = []
                }
                for action in actions {
                    switch action {
                    case .announceHint:
                        break  // announced in pressed(_:machine:) with the presentation it was decided on
                    case .announceCancelled:
                        if let presentation = try? await center.presentation(of: settings.placement) {
                            announcements.yield(.cancelled(presentation))
                        }
                    case .perform:
                        group.addTask {
                            await self.perform()
                            sink.yield(.finished)
                        }
                    case .scheduleCheck(let timestamp):
                        // The check's moment, on the edges' clock, as a deadline on ours.
                        let clock = self.clock, deadline = clock.now.advanced(by: max(timestamp - chip.now, .zero))
                        group.addTask {
                            guard (try? await clock.sleep(until: deadline)) != nil else { return }
                            sink.yield(.check(at: timestamp))
                        }
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// A press: announce the hint now, or why holding will do nothing (then the press is not fed
    /// to the state machine, so no hold performs).
    private func pressed(_ edge: GPIOEdgeEvent, machine: inout HoldToPerform) async -> [HoldToPerform.Action] {
        guard machine.state == .idle else { return machine.press(at: edge.timestamp) }
        guard let presentation = try? await center.presentation(of: settings.placement) else {
            announcements.yield(ActionButtonAnnouncement(phase: .refused, text: "Nothing is placed on this button", control: settings.placement))
            return []
        }
        let announcement = ActionButtonAnnouncement.onPress(
            presentation, locked: await center.isLocked, requiresAuthentication: await center.requiresAuthentication(settings.placement)
        )
        announcements.yield(announcement)
        return announcement.phase == .hint ? machine.press(at: edge.timestamp) : []
    }

    /// Performs the bound control's action (a toggle flips, a button presses) and announces the outcome.
    private func perform() async {
        guard let before = try? await center.presentation(of: settings.placement) else { return }
        let request: ControlRequest = before.template == .button ? .press : .toggle
        do {
            let outcome = try await center.perform(settings.placement, request, authenticated: false)
            announcements.yield(.performed(outcome.presentation, dialog: outcome.dialog, before: before))
        } catch let error as ControlError {
            announcements.yield(.notPerformed(before, error: error))
        } catch {
            announcements.yield(.notPerformed(before, error: ControlError(.performFailed, detail: String(describing: error))))
        }
    }

    /// Presses the button for `hold` on a simulated chip, as a finger would.
    /// - Throws: ``GPIOError`` `.wrongDirection` on a real chip.
    public func simulatePress(hold: Duration) async throws {
        let finger = try SimulatedFinger(chip, gpio: settings.gpio, clock: clock)
        try await finger.press(for: hold)
        await finger.settle()
    }
}

/// Stops when cancelled: a group stops it with ``ServiceGroup/Entry/Stop/cancellation``.
extension ActionButtonService: Service {}
