import ControlKitCore
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardConfiguration

/// A push-button's short, double and long presses (``ClickDetector``), each performing the
/// placement devices.json binds to it and announced on ``clicks`` (the log and MQTT).
public final class ButtonService: Sendable {
    public let settings: ButtonSettings
    let chip: any GPIOChip
    let line: any GPIOLineRequest
    let input: DebouncedInput
    let center: ControlCenter
    let clock: AnyClock
    /// Every press told apart, with what performing its placement gave (nil: nothing bound).
    public let clicks = Broadcast<(click: String, outcome: String?)>()
    /// The last press told apart and what it did, for `switchboard status`.
    private let last = Locked<String?>(nil)

    private enum Event: Sendable {
        case edge(GPIOEdgeEvent)
        case check(at: Duration)
    }

    /// Requests the button's line, as the Action button does (kernel debounce where libgpiod 2.x has it).
    public init(settings: ButtonSettings, chip: any GPIOChip, center: ControlCenter, clock: some Clock<Duration> = ContinuousClock()) throws {
        self.settings = settings
        self.chip = chip
        self.center = center
        self.clock = AnyClock(clock)
        (line, input) = try settings.gpio.requestInput(on: chip, clock: clock)
    }

    public func release() { line.release() }

    /// Watches the button until cancelled.
    public func run() async {
        let input = self.input
        var detector = ClickDetector(longTime: settings.longTime, doubleWindow: settings.doubleWindow)
        let (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        await withDiscardingTaskGroup { group in
            group.addTask {
                await input.run { edge in sink.yield(.edge(edge)) }
                sink.finish()
            }
            for await event in events {
                let outcome: ClickDetector.Outcome
                switch event {
                case .edge(let edge) where edge.value: outcome = detector.press(at: edge.timestamp)
                case .edge(let edge): outcome = detector.release(at: edge.timestamp)
                case .check(let timestamp): outcome = detector.check(at: timestamp)
                }
                for click in outcome.clicks {
                    group.addTask { await self.perform(click) }
                }
                if let timestamp = outcome.checkAt {
                    // The check's moment, on the edges' clock, as a deadline on ours.
                    let clock = self.clock, deadline = clock.now.advanced(by: max(timestamp - chip.now, .zero))
                    group.addTask {
                        guard (try? await clock.sleep(until: deadline)) != nil else { return }
                        sink.yield(.check(at: timestamp))
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// Performs the placement bound to a press: a toggle toggles, a button presses.
    private func perform(_ click: ClickDetector.Click) async {
        let placement: String? = switch click {
        case .short: settings.short
        case .double: settings.double
        case .long: settings.long
        }
        guard let placement else {
            announce(click, nil)
            return
        }
        do {
            let before = try await center.presentation(of: placement)
            let outcome = try await center.perform(placement, before.template == .button ? .press : .toggle, authenticated: false)
            announce(click, "\(placement) \(outcome.presentation.valueText ?? "performed")")
        } catch {
            announce(click, "\(placement) not performed: \(error)")
        }
    }

    private func announce(_ click: ClickDetector.Click, _ outcome: String?) {
        last.withLock { $0 = "\(click.rawValue): \(outcome ?? "nothing bound")" }
        clicks.yield((click.rawValue, outcome))
    }

    /// What each press does, and the last one told apart: "hall: short → porch, double → fan;
    /// last press: double: fan On".
    public var summary: String {
        let bound = [("short", settings.short), ("double", settings.double), ("long", settings.long)]
            .compactMap { name, placement in placement.map { "\(name) → \($0)" } }
        let presses = bound.isEmpty ? "nothing bound" : bound.joined(separator: ", ")
        return "\(settings.id): \(presses); last press: \(last.withLock { $0 } ?? "none yet")"
    }
}

/// Stops when cancelled: a group stops it with ``ServiceGroup/Entry/Stop/cancellation``.
extension ButtonService: Service {}
