/// What an intent's `perform()` returns. Return `.result()`.
public protocol IntentResult: Sendable {}

/// The result of an intent, with an optional dialog that surfaces may announce.
public struct IntentResultValue: IntentResult, Hashable {
    /// What to tell people about the outcome, if anything.
    public var dialog: IntentDialog?

    init(dialog: IntentDialog? = nil) { self.dialog = dialog }
}

extension IntentResult where Self == IntentResultValue {
    /// A result with nothing more to say.
    public static func result() -> IntentResultValue { IntentResultValue() }

    /// A result with a dialog.
    public static func result(dialog: IntentDialog) -> IntentResultValue { IntentResultValue(dialog: dialog) }
}

/// Text that an intent gives people as its outcome.
public struct IntentDialog: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The dialog's text.
    public var text: String

    public init(_ text: LocalizedStringResource) { self.text = text.key }
    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: DefaultStringInterpolation) { text = String(stringInterpolation: stringInterpolation) }
}
