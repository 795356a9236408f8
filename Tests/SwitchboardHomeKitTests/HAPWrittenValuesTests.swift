@testable import SwitchboardHomeKit
import Testing

/// What a controller that wrote values is told of the changes after its answer.
struct HAPWrittenValuesTests {
    static let on = HAPCharacteristicID(aid: 2, iid: 9)
    static let brightness = HAPCharacteristicID(aid: 2, iid: 10)

    @Test func theChangeToTheWrittenValueIsLeftOutOnceAndLaterChangesGoOut() {
        var written = HAPWrittenValues()
        written.note([HAPCharacteristicWrite(id: Self.on, value: .int(1)), HAPCharacteristicWrite(id: Self.brightness, value: .int(40))], [.success, .success])
        // Written as 1, reported as true: the write's own change.
        #expect(written.news(in: [Self.on: .bool(true), Self.brightness: .int(40)]).isEmpty)
        #expect(written.count == 0)
        #expect(written.news(in: [Self.on: .bool(true)]) == [Self.on: .bool(true)])
    }

    @Test func aChangeToAnotherValueIsNewsAndEndsTheWait() {
        var written = HAPWrittenValues()
        written.note([HAPCharacteristicWrite(id: Self.brightness, value: .int(40))], [.success])
        #expect(written.news(in: [Self.brightness: .int(55)]) == [Self.brightness: .int(55)])
        #expect(written.news(in: [Self.brightness: .int(40)]) == [Self.brightness: .int(40)])
    }

    @Test func aFailedWriteLeavesNothingOutAndForgetsAnEarlierOne() {
        var written = HAPWrittenValues()
        written.note([HAPCharacteristicWrite(id: Self.on, value: .bool(true))], [.success])
        written.note([HAPCharacteristicWrite(id: Self.on, value: .bool(true))], [.serviceCommunicationFailure])
        #expect(written.count == 0)
        #expect(written.news(in: [Self.on: .bool(true)]) == [Self.on: .bool(true)])
        // Statuses missing for a write count as failed.
        written.note([HAPCharacteristicWrite(id: Self.on, value: .bool(false))], [])
        #expect(written.news(in: [Self.on: .bool(false)]) == [Self.on: .bool(false)])
    }

    @Test func otherCharacteristicsPassUntouched() {
        var written = HAPWrittenValues()
        written.note([HAPCharacteristicWrite(id: Self.on, value: .bool(true))], [.success])
        #expect(written.news(in: [Self.brightness: .int(3)]) == [Self.brightness: .int(3)])
        #expect(written.count == 1)
    }
}
