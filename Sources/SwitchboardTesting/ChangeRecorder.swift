import ControlKitCore

/// Reads a control center's changes one at a time, so a test can wait for exactly the next one.
public struct ChangeRecorder {
    private var iterator: AsyncStream<ControlChange>.AsyncIterator

    /// Starts recording: changes from this moment on are kept until read.
    public init(_ center: ControlCenter) {
        iterator = center.changes().makeAsyncIterator()
    }

    /// The next change.
    public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> ControlChange? {
        await iterator.next(isolation: actor)
    }

    /// The next presentation change, skipping other changes.
    public mutating func nextPresentation(isolation actor: isolated (any Actor)? = #isolation) async -> ControlPresentation? {
        while let change = await iterator.next(isolation: actor) {
            if case .presentation(let presentation) = change { return presentation }
        }
        return nil
    }
}
