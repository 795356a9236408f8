/// An action a control performs: what happens when someone taps it in Control Center, holds the
/// Action button, or sends it a command over MQTT.
///
/// Mirrors AppIntents' `AppIntent`. The runtime creates or copies the intent, sets its parameters
/// (a toggle's ``SetValueIntent/value`` to the control's new state), and calls ``perform()``; the
/// control reloads only once `perform()` returns, so finish all work and save all state before.
public protocol AppIntent: Sendable {
    /// The kind of result `perform()` returns: `some IntentResult`.
    associatedtype PerformResult: IntentResult

    /// A short name for the action.
    static var title: LocalizedStringResource { get }

    /// A longer description of the action.
    static var description: IntentDescription? { get }

    /// Whether the action needs Switchboard unlocked (or an authenticated caller) to run.
    static var authenticationPolicy: IntentAuthenticationPolicy { get }

    /// Whether the action may run while the board is locked with no authentication at all.
    static var isDiscoverable: Bool { get }

    /// Whether running the action opens its app. A board has no app to bring to the front: the
    /// action runs, and its outcome's dialog (printed by the CLI, announced by the Action button,
    /// published with the MQTT result) says "Open" and the control's display name, unless the
    /// intent gave a dialog of its own.
    static var openAppWhenRun: Bool { get }

    /// Creates the intent with its parameters unset.
    init()

    /// Carries out the action.
    func perform() async throws -> PerformResult
}

extension AppIntent {
    public static var description: IntentDescription? { nil }
    public static var authenticationPolicy: IntentAuthenticationPolicy { .alwaysAllowed }
    public static var isDiscoverable: Bool { true }
    public static var openAppWhenRun: Bool { false }
}

/// A description of an intent, shown when configuring.
public struct IntentDescription: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The description's text.
    public var text: String

    /// Creates a description.
    public init(_ text: LocalizedStringResource) { self.text = text.key }
    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: DefaultStringInterpolation) { text = String(stringInterpolation: stringInterpolation) }
}

/// When an intent may run. Mirrors AppIntents' `IntentAuthenticationPolicy`.
public enum IntentAuthenticationPolicy: String, Sendable, Hashable, Codable {
    /// Runs whatever the lock state.
    case alwaysAllowed
    /// Runs only while Switchboard is unlocked, or for an authenticated caller (the local CLI).
    case requiresAuthentication
    /// As ``requiresAuthentication``: on a board the local device is Switchboard itself.
    case requiresLocalDeviceAuthentication

    /// Whether this policy needs unlocking or an authenticated caller.
    public var requiresAuthentication: Bool { self != .alwaysAllowed }
}

/// An intent that sets a value: the action of a ``ControlWidgetToggle``.
///
/// Do not set ``value`` yourself: the runtime sets it to the toggle's new state before `perform()`.
public protocol SetValueIntent: AppIntent {
    /// The type of value the intent sets (`Bool` for toggles).
    associatedtype ValueType: _IntentValue
    /// The new state.
    var value: ValueType { get set }
}

/// An intent that opens a target: on a board, the button's announcement names what it opens.
public protocol OpenIntent: AppIntent {
    /// What the intent opens.
    associatedtype Value: _IntentValue
    /// The target, usually an ``AppEnum`` case.
    var target: Value { get set }
}

extension OpenIntent {
    /// Opening needs no further work on a board: the runtime announces what was opened.
    public func perform() async throws -> IntentResultValue { .result() }
}

/// An intent that starts, updates or ends a Live Activity. A marker on Switchboard.
public protocol LiveActivityIntent: AppIntent {}

/// An intent that plays audio. Mirrors AppIntents' `AudioPlaybackIntent`: on a board it runs as
/// any intent does, and plays its audio its own way (a board has no system audio session).
public protocol AudioPlaybackIntent: AppIntent {}

/// An intent whose parameters configure a control: which light, which timer.
public protocol ControlConfigurationIntent: AppIntent {}

/// An intent whose parameters configure a widget; usable to configure controls too.
public protocol WidgetConfigurationIntent: ControlConfigurationIntent {}

extension ControlConfigurationIntent {
    /// Configuration intents do nothing when performed.
    public func perform() async throws -> IntentResultValue { .result() }
}
