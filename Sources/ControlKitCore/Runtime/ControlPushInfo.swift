#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A placed control's push token.
///
/// Mirrors WidgetKit's `ControlPushInfo`. The token is the placement's identifier as UTF-8: a
/// message on `<base>/push/<token>` reloads that control (see ``ControlPushHandler``).
public struct ControlPushInfo: Sendable, Hashable {
    /// The token: valid until the handler is told otherwise.
    public let token: Data

    init(placement id: String) { token = Data(id.utf8) }
}
