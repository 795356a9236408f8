/// What an intent's `perform()` returns. Return `.result()`.
public protocol IntentResult: Sendable {}

/// A result that gives people a dialog: `some IntentResult & ProvidesDialog`, from
/// `.result(dialog:)`. Mirrors AppIntents' `ProvidesDialog`.
public protocol ProvidesDialog: IntentResult {}

/// A result that opens another intent when the first has run: `.result(opensIntent:)`. On a
/// board "opening" an intent runs it, right after, as part of the same action. Mirrors
/// AppIntents' `OpensIntent`.
public protocol OpensIntent: IntentResult {}

/// The result of an intent, with an optional dialog that surfaces may announce, and the intent
/// it opens, if any.
public struct IntentResultValue: IntentResult, ProvidesDialog, OpensIntent {
    /// What to tell people about the outcome, if anything.
    public var dialog: IntentDialog?
    /// The intent to run next, from `.result(opensIntent:)`.
    public var opensIntent: (any AppIntent)?

    init(dialog: IntentDialog? = nil, opensIntent: (any AppIntent)? = nil) {
        self.dialog = dialog
        self.opensIntent = opensIntent
    }
}

extension IntentResult where Self == IntentResultValue {
    /// A result with nothing more to say.
    public static func result() -> IntentResultValue { IntentResultValue() }

    /// A result with a dialog.
    public static func result(dialog: IntentDialog) -> IntentResultValue { IntentResultValue(dialog: dialog) }

    /// A result that opens another intent: it runs next (see ``OpensIntent``).
    public static func result(opensIntent: some AppIntent) -> IntentResultValue { IntentResultValue(opensIntent: opensIntent) }

    /// A result that opens another intent, with a dialog.
    public static func result(opensIntent: some AppIntent, dialog: IntentDialog) -> IntentResultValue {
        IntentResultValue(dialog: dialog, opensIntent: opensIntent)
    }
}

extension AppIntent {
    /// Performs the intent, then every intent its result opens (at most 8 in a row, so that two
    /// intents that open each other end), and gives the last result with a dialog's dialog.
    func performOpeningIntents() async throws -> IntentResultValue {
        var result = try await perform() as any IntentResult
        var dialog = (result as? IntentResultValue)?.dialog
        var opened = 0
        while let next = (result as? IntentResultValue)?.opensIntent, opened < 8 {
            result = try await next.perform()
            dialog = (result as? IntentResultValue)?.dialog ?? dialog
            opened += 1
        }
        return IntentResultValue(dialog: dialog)
    }
}

/// Text that an intent gives people as its outcome.
public struct IntentDialog: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The dialog's text.
    public var text: String

    public init(_ text: LocalizedStringResource) { self.text = text.key }
    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: DefaultStringInterpolation) { text = String(stringInterpolation: stringInterpolation) }
}
