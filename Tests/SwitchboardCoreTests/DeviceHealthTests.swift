import Foundation
@testable import SwitchboardCore
import SwitchboardSupport
import Testing
@testable import SwitchboardConfiguration

/// A device of another system's health, on a clock's instants: offline, an unanswered command and
/// silence each make it stale with their reason, and what ends each.
@Suite struct DeviceHealthTests {
    let start = OffsetInstant(offset: .seconds(100))

    @Test func silenceForStaleAfterMakesItStaleExactlyThenAndAnyMessageEndsIt() {
        var health = DeviceHealth(staleAfter: .seconds(600), since: start)
        #expect(health.nextWake == start.advanced(by: .seconds(600)))
        health.tick(at: start.advanced(by: .seconds(599)))
        #expect(health.reason == nil)
        health.tick(at: start.advanced(by: .seconds(600)))
        #expect(health.reason == "silent for 10m")
        #expect(health.nextWake == nil, "nothing more to wake for while silent")
        health.heardState(at: start.advanced(by: .seconds(700)))
        #expect(health.reason == nil)
        #expect(health.nextWake == start.advanced(by: .seconds(1300)), "the silence counts from the last message")
    }

    @Test func timeWithoutTheBrokerIsNoSilenceOfTheDevices() {
        var health = DeviceHealth(staleAfter: .seconds(600), since: start)
        health.stoppedListening(at: start.advanced(by: .seconds(500)))
        #expect(health.nextWake == nil, "nothing to wake for while the node cannot hear it")
        health.tick(at: start.advanced(by: .seconds(2_000)))
        #expect(health.reason == nil)
        health.stoppedListening(at: start.advanced(by: .seconds(2_100)))
        health.listeningAgain(at: start.advanced(by: .seconds(3_500)))
        #expect(health.nextWake == start.advanced(by: .seconds(3_600)), "500 s heard silent before the loss, 100 s left after it")
        health.tick(at: start.advanced(by: .seconds(3_599)))
        #expect(health.reason == nil)
        health.tick(at: start.advanced(by: .seconds(3_600)))
        #expect(health.reason == "silent for 10m")
        health.stoppedListening(at: start.advanced(by: .seconds(3_700)))
        health.listeningAgain(at: start.advanced(by: .seconds(3_800)))
        #expect(health.reason == "silent for 10m", "a silence heard before the loss stays until it speaks")
    }

    @Test func withoutStaleAfterSilenceIsNeverStale() {
        var health = DeviceHealth(staleAfter: nil, since: start)
        health.tick(at: start.advanced(by: .seconds(86_400)))
        #expect(health.reason == nil)
        #expect(health.nextWake == nil)
    }

    @Test func offlineIsTheReasonUntilItSaysItIsOnline() {
        var health = DeviceHealth(staleAfter: nil, since: start)
        health.heardAvailability(false, "Offline", on: "tele/plug/LWT", at: start)
        #expect(health.reason == "offline: tele/plug/LWT said Offline")
        health.heardState(at: start.advanced(by: .seconds(1)))
        #expect(health.reason == "offline: tele/plug/LWT said Offline", "a state message does not say it is online")
        health.heardAvailability(true, "Online", on: "tele/plug/LWT", at: start.advanced(by: .seconds(2)))
        #expect(health.reason == nil)
    }

    @Test func anUnansweredCommandIsTheReasonUntilTheNextStateMessage() {
        var health = DeviceHealth(staleAfter: nil, since: start)
        health.unanswered("ON", after: .seconds(5))
        #expect(health.reason == "no answer to ON after 5s")
        health.heardAvailability(true, "Online", on: "tele/plug/LWT", at: start)
        #expect(health.reason == "no answer to ON after 5s", "being online is no answer")
        health.heardState(at: start)
        #expect(health.reason == nil)
    }

    @Test func carriedToAnotherClockItKeepsItsReasonAndHowLongItWasSilent() {
        var health = DeviceHealth(staleAfter: .seconds(60), since: start)
        health.heardAvailability(false, "Offline", on: "tele/plug/LWT", at: start)
        let next = OffsetInstant(offset: .seconds(5))
        let moved = health.rebased(from: start.advanced(by: .seconds(20)), to: next)
        #expect(moved.reason == "offline: tele/plug/LWT said Offline")
        #expect(moved.nextWake == next.advanced(by: .seconds(40)))
    }

    @Test func availabilityPayloadsPlainAndJSON() {
        let z2m = MQTTAvailability.convention(stateTopic: "zigbee2mqtt/kitchen", commandTopic: "zigbee2mqtt/kitchen/set")
        #expect(z2m == MQTTAvailability(topic: "zigbee2mqtt/kitchen/availability", payloadAvailable: "online", payloadNotAvailable: "offline"))
        #expect(z2m?.available(Array(#"{"state":"offline"}"#.utf8)) == false)
        #expect(z2m?.available(Array("online\n".utf8)) == true)
        #expect(z2m?.available(Array("maybe".utf8)) == nil)
        #expect(z2m?.available(Array(#"{"state":5}"#.utf8)) == nil)
        #expect(z2m?.available([0xFF, 0xFE]) == nil)
        #expect(MQTTAvailability.convention(stateTopic: "stat/plug/POWER", commandTopic: "cmnd/plug/POWER")
            == MQTTAvailability(topic: "tele/plug/LWT", payloadAvailable: "Online", payloadNotAvailable: "Offline"))
        #expect(MQTTAvailability.convention(stateTopic: "shellies/shelly1-AB12/relay/0", commandTopic: "shellies/shelly1-AB12/relay/0/command")
            == MQTTAvailability(topic: "shellies/shelly1-AB12/online", payloadAvailable: "true", payloadNotAvailable: "false"))
        #expect(MQTTAvailability.convention(stateTopic: "home/lamp/state", commandTopic: "home/lamp/cmd") == nil)
    }
}
