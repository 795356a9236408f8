import SwitchboardCore
import SwitchboardSupport
import Testing

@Suite struct CoverMotionTests {
    let timing = CoverMotion.Timing(openTime: .seconds(20), closeTime: .seconds(10), deadTime: .milliseconds(500))

    func at(_ milliseconds: Int) -> OffsetInstant { OffsetInstant(offset: .milliseconds(milliseconds)) }

    @Test func halfTheTravelThenStopIsHalfOpen() throws {
        var blind = CoverMotion(timing: timing, position: 0)
        #expect(blind.state(at: at(0)) == .closed)
        let step1 = try blind.perform(.open, at: at(0))
        #expect(step1 == .run(.opening))
        #expect(blind.state(at: at(5_000)) == .opening)
        #expect(blind.shownPosition(at: at(5_000)) == 25)
        let step2 = try blind.perform(.stop, at: at(10_000))
        #expect(step2 == .stop)
        #expect(blind.shownPosition(at: at(60_000)) == 50)
        #expect(blind.state(at: at(60_000)) == .stopped)
        #expect(blind.nextWake == nil)
    }

    @Test func goingToThirtyFromOpenStopsAtTheExactInstant() throws {
        var blind = CoverMotion(timing: timing, position: 100)
        let step3 = try blind.perform(.position(30), at: at(1_000))
        #expect(step3 == .run(.closing))
        // 70 % of a 10 s close: 7 s.
        #expect(blind.nextWake == at(8_000))
        let step4 = blind.advance(to: at(7_999))
        #expect(step4 == nil)
        let step5 = blind.advance(to: at(8_000))
        #expect(step5 == .stop)
        #expect(blind.shownPosition(at: at(8_000)) == 30)
        #expect(blind.state(at: at(8_000)) == .stopped)
    }

    @Test func fullTravelOpensAndNeedsNoEndStop() throws {
        var blind = CoverMotion(timing: timing, position: 0)
        _ = try blind.perform(.open, at: at(0))
        let step6 = blind.advance(to: at(20_000))
        #expect(step6 == .stop)
        #expect(blind.state(at: at(20_000)) == .open)
        let step7 = try blind.perform(.open, at: at(21_000))
        #expect(step7 == nil, "already open: nothing runs")
    }

    @Test func anEndStopReachedEarlyCorrectsTheEstimate() throws {
        var blind = CoverMotion(timing: CoverMotion.Timing(openTime: .seconds(20), closeTime: .seconds(10), endStops: [.closed]), position: 100)
        let step8 = try blind.perform(.close, at: at(0))
        #expect(step8 == .run(.closing))
        // With its end stop, a travel to that end runs a tenth of the travel longer.
        #expect(blind.nextWake == at(11_000))
        #expect(blind.shownPosition(at: at(8_000)) == 20)
        let step9 = blind.reached(.closed, at: at(8_000))
        #expect(step9 == .stop)
        #expect(blind.state(at: at(8_000)) == .closed)
        #expect(blind.shownPosition(at: at(8_000)) == 0)
        #expect(blind.nextWake == nil)
    }

    @Test func theEndStopItLeavesSeenLateNeitherStopsNorMovesTheRun() throws {
        var blind = CoverMotion(timing: timing, position: nil)
        #expect(try blind.perform(.open, at: at(0)) == .run(.opening))
        // The closed end stop's contact, seen just after the open began: the blind is there now.
        #expect(blind.reached(.closed, at: at(100)) == nil, "opening away from it goes on")
        #expect(blind.direction == .opening)
        #expect(blind.shownPosition(at: at(10_100)) == 50, "counted from the closed end at 100 ms")
        #expect(blind.advance(to: at(20_099)) == nil)
        #expect(blind.advance(to: at(20_100)) == .stop)
        #expect(blind.shownPosition(at: at(20_100)) == 100)
    }

    @Test func anEndStopAtTheFarEndIsWaitedForThenStops() throws {
        var blind = CoverMotion(timing: CoverMotion.Timing(openTime: .seconds(20), closeTime: .seconds(10), endStops: [.opened]), position: 0)
        _ = try blind.perform(.open, at: at(0))
        let step10 = blind.advance(to: at(20_000))
        #expect(step10 == nil, "the estimate is not the end stop")
        #expect(blind.shownPosition(at: at(20_000)) == 100)
        let step11 = blind.advance(to: at(22_000))
        #expect(step11 == .stop, "a tenth of the travel later it stops anyway")
        #expect(blind.state(at: at(22_000)) == .open)
    }

    @Test func reversingWhileMovingStopsAndWaitsTheDeadTime() throws {
        var blind = CoverMotion(timing: timing, position: 0)
        _ = try blind.perform(.open, at: at(0))
        let step12 = try blind.perform(.close, at: at(10_000))
        #expect(step12 == .stop)
        #expect(blind.state(at: at(10_000)) == .stopped)
        #expect(blind.nextWake == at(10_500))
        let step13 = blind.advance(to: at(10_499))
        #expect(step13 == nil)
        #expect(blind.shownPosition(at: at(10_499)) == 50)
        let step14 = blind.advance(to: at(10_500))
        #expect(step14 == .run(.closing))
        #expect(blind.state(at: at(10_500)) == .closing)
        // 50 % of a 10 s close.
        #expect(blind.nextWake == at(15_500))
        let step15 = blind.advance(to: at(15_500))
        #expect(step15 == .stop)
        #expect(blind.state(at: at(15_500)) == .closed)
    }

    @Test func stopDuringTheDeadTimeCancelsTheReversal() throws {
        var blind = CoverMotion(timing: timing, position: 0)
        _ = try blind.perform(.open, at: at(0))
        _ = try blind.perform(.close, at: at(4_000))
        let step16 = try blind.perform(.stop, at: at(4_200))
        #expect(step16 == nil, "already stopped")
        let step17 = blind.advance(to: at(5_000))
        #expect(step17 == nil)
        #expect(blind.shownPosition(at: at(5_000)) == 20)
    }

    @Test func aPositionIsRefusedWhileUnknownOrOutOfRange() throws {
        var blind = CoverMotion(timing: timing)
        #expect(blind.position(at: at(0)) == nil)
        #expect(throws: CoverMotionError.unknownPosition(30)) { try blind.perform(.position(30), at: at(0)) }
        var known = CoverMotion(timing: timing, position: 10)
        #expect(throws: CoverMotionError.outOfRange(120)) { try known.perform(.position(120), at: at(0)) }
        let step18 = try blind.perform(.close, at: at(0))
        #expect(step18 == .run(.closing))
        let step19 = blind.advance(to: at(10_000))
        #expect(step19 == .stop)
        #expect(blind.state(at: at(10_000)) == .closed)
    }
}

@Suite struct GarageDoorMotionTests {
    func at(_ seconds: Int) -> OffsetInstant { OffsetInstant(offset: .seconds(seconds)) }

    @Test func opensOnlyWhenTheReedSeesItLeave() {
        var door = GarageDoorMotion(reeds: [.closed, .opened], travelTime: .seconds(15))
        door.reed(.closed, active: true, at: at(0))
        door.reed(.opened, active: false, at: at(0))
        #expect(door.state(at: at(0)) == .closed)
        let step20 = door.pulse(for: .open, at: at(1))
        #expect(step20)
        #expect(door.state(at: at(2)) == .closed, "a pulse alone moves nothing that is seen")
        door.reed(.closed, active: false, at: at(3))
        #expect(door.state(at: at(3)) == .opening)
        let step21 = door.pulse(for: .open, at: at(4))
        #expect(step21 == false, "already opening")
        door.reed(.opened, active: true, at: at(16))
        #expect(door.state(at: at(16)) == .open)
    }

    @Test func aDoorThatReachesNoEndIsStopped() {
        var door = GarageDoorMotion(reeds: [.closed, .opened], travelTime: .seconds(15))
        door.reed(.opened, active: true, at: at(0))
        door.reed(.opened, active: false, at: at(10))
        #expect(door.state(at: at(24)) == .closing)
        #expect(door.nextWake(after: at(24)) == at(25))
        #expect(door.state(at: at(25)) == .stopped)
    }

    @Test func stopPulsesOnlyWhileMoving() {
        var door = GarageDoorMotion(reeds: [.closed], travelTime: .seconds(15))
        door.reed(.closed, active: true, at: at(0))
        let step22 = door.pulse(for: .stop, at: at(1))
        #expect(step22 == false)
        door.reed(.closed, active: false, at: at(2))
        let step23 = door.pulse(for: .stop, at: at(3))
        #expect(step23)
        #expect(door.state(at: at(4)) == .stopped)
        #expect(door.state(at: at(60)) == .stopped)
    }

    @Test func withOnlyAClosedReedItIsOpenAfterItsTravel() {
        var door = GarageDoorMotion(reeds: [.closed], travelTime: .seconds(15))
        door.reed(.closed, active: true, at: at(0))
        door.reed(.closed, active: false, at: at(1))
        #expect(door.state(at: at(15)) == .opening)
        #expect(door.state(at: at(16)) == .open)
        let step24 = door.pulse(for: .close, at: at(20))
        #expect(step24)
    }
}
