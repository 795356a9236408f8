import Synchronization

/// The messages a connection received, as an `AsyncSequence` that knows how many are waiting:
/// ``MQTTConnection/waitingMessages`` falls as they are taken. Iterate it from one task.
public struct MQTTMessages: AsyncSequence, Sendable {
    public typealias Element = MQTTMessage
    let stream: AsyncStream<MQTTMessage>
    let waiting: WaitingCount

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<MQTTMessage>.AsyncIterator
        let waiting: WaitingCount

        public mutating func next() async -> MQTTMessage? {
            guard let message = await base.next() else { return nil }
            waiting.taken()
            return message
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> MQTTMessage? {
            guard let message = await base.next(isolation: actor) else { return nil }
            waiting.taken()
            return message
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), waiting: waiting) }
}

/// How many received messages wait to be taken.
final class WaitingCount: Sendable {
    private let count = Atomic<Int>(0)
    func received() { count.add(1, ordering: .relaxed) }
    func taken() { count.subtract(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
