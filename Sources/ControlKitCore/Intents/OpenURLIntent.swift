#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An intent that opens a URL. Mirrors AppIntents' `OpenURLIntent`, usually returned with
/// `.result(opensIntent: OpenURLIntent(url))`.
///
/// A board has no browser to open it in: the URL is the action's dialog ("Open https://…"),
/// which the CLI prints, the Action button announces and the MQTT result carries, so the person
/// or system that ran the control gets it.
public struct OpenURLIntent: AppIntent {
    public static let title: LocalizedStringResource = "Open URL"
    /// The URL to open.
    public var url: URL

    /// An intent that opens `url`.
    public init(_ url: URL) { self.url = url }

    /// An intent with no URL yet (`about:blank`).
    public init() { url = URL(string: "about:blank")! }

    public func perform() async throws -> some IntentResult & ProvidesDialog {
        .result(dialog: "Open \(url.absoluteString)")
    }
}
