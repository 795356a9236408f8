import SwitchboardGPIO
import SwitchboardTesting
import Testing

@Suite struct SimulatedGPIOChipTests {
    let clock = ManualClock()
    var chip: SimulatedGPIOChip { SimulatedGPIOChip(lineCount: 8, clock: clock) }

    @Test func outputStartsAtItsInitialValueAndReadsBackFromTheLine() throws {
        let chip = self.chip
        let relay = try chip.request(.name("GPIO4"), GPIOLineConfiguration(.output(initialValue: true)))
        #expect(relay.offset == 4)
        #expect(try chip.physicalLevel(.offset(4)) == true)
        #expect(try relay.value() == true)
        try relay.setValue(false)
        #expect(try chip.physicalLevel(.offset(4)) == false)
        #expect(try relay.value() == false)
        #expect(try chip.consumer(of: .offset(4)) == "switchboard")
    }

    @Test func activeLowInvertsThePhysicalLevel() throws {
        let chip = self.chip
        let relay = try chip.request(.offset(2), GPIOLineConfiguration(.output(initialValue: true), activeLow: true))
        #expect(try chip.physicalLevel(.offset(2)) == false)
        try relay.setValue(false)
        #expect(try chip.physicalLevel(.offset(2)) == true)

        let button = try chip.request(.offset(3), GPIOLineConfiguration(.input(), activeLow: true, bias: .pullUp))
        #expect(try chip.physicalLevel(.offset(3)) == true)
        #expect(try button.value() == false)
        try chip.drive(.offset(3), high: false)
        #expect(try button.value() == true)
    }

    @Test func busyLineNamesItsConsumerAndNothingStaysRequested() throws {
        let chip = self.chip
        let held = try chip.request(.offset(5), GPIOLineConfiguration(.output(initialValue: false), consumer: "heater-app"))
        #expect(throws: GPIOError.self) { try chip.request(.offset(5), GPIOLineConfiguration(.input())) }
        do {
            _ = try chip.request(.offset(5), GPIOLineConfiguration(.input()))
        } catch let error as GPIOError {
            #expect(error.code == .lineBusy)
            #expect(error.description == "gpiochip0 line 5 is busy: held by \"heater-app\"; stop that program or choose another line")
        }
        #expect(try chip.consumer(of: .offset(5)) == "heater-app")
        held.release()
        #expect(try chip.consumer(of: .offset(5)) == nil)
        _ = try chip.request(.offset(5), GPIOLineConfiguration(.input()))
    }

    @Test func outOfRangeAndUnknownNamesSayWhatExists() {
        let chip = self.chip
        #expect {
            try chip.request(.offset(99), GPIOLineConfiguration(.input()))
        } throws: { error in
            (error as? GPIOError)?.description == "gpiochip0 line 99 is out of range for gpiochip0 (0…7)"
        }
        #expect {
            try chip.request(.name("GPIO99"), GPIOLineConfiguration(.input()))
        } throws: { error in
            (error as? GPIOError)?.description == "gpiochip0 has no line named \"GPIO99\"; use the line's offset or its name from `gpioinfo gpiochip0`"
        }
    }

    @Test func wrongDirectionIsRefused() throws {
        let chip = self.chip
        let input = try chip.request(.offset(1), GPIOLineConfiguration(.input()))
        #expect { try input.setValue(true) } throws: { ($0 as? GPIOError)?.code == .wrongDirection }
        #expect { try input.edges() } throws: { ($0 as? GPIOError)?.description == "gpiochip0 line 1: wrong direction: it was requested without edge detection" }
        let output = try chip.request(.offset(0), GPIOLineConfiguration(.output(initialValue: false)))
        #expect { try output.edges() } throws: { ($0 as? GPIOError)?.code == .wrongDirection }
    }

    @Test func releasedOutputFallsBackToItsPullAndTheRequestIsDead() throws {
        let chip = self.chip
        let relay = try chip.request(.offset(6), GPIOLineConfiguration(.output(initialValue: true)))
        relay.release()
        #expect(try chip.physicalLevel(.offset(6)) == false)
        let pulledUp = try chip.request(.offset(7), GPIOLineConfiguration(.output(initialValue: false), bias: .pullUp))
        #expect(try chip.physicalLevel(.offset(7)) == false)
        pulledUp.release()
        #expect(try chip.physicalLevel(.offset(7)) == true)
        #expect { try relay.setValue(false) } throws: { ($0 as? GPIOError)?.code == .released }
    }

    @Test func edgesCarryTheClocksTimestampAndFollowTheDetection() async throws {
        let chip = self.chip
        let both = try chip.request(.offset(1), GPIOLineConfiguration(.input(edges: .both)))
        let rising = try chip.request(.offset(2), GPIOLineConfiguration(.input(edges: .rising)))
        var bothEdges = try both.edges().makeAsyncIterator()
        var risingEdges = try rising.edges().makeAsyncIterator()
        clock.advance(by: .milliseconds(5))
        try chip.drive(.offset(1), high: true)
        try chip.drive(.offset(2), high: true)
        clock.advance(by: .milliseconds(7))
        try chip.drive(.offset(1), high: false)
        try chip.drive(.offset(2), high: false)
        try chip.drive(.offset(2), high: true)
        #expect(await bothEdges.next() == GPIOEdgeEvent(offset: 1, value: true, timestamp: .milliseconds(5)))
        #expect(await bothEdges.next() == GPIOEdgeEvent(offset: 1, value: false, timestamp: .milliseconds(12)))
        #expect(await risingEdges.next() == GPIOEdgeEvent(offset: 2, value: true, timestamp: .milliseconds(5)))
        #expect(await risingEdges.next() == GPIOEdgeEvent(offset: 2, value: true, timestamp: .milliseconds(12)))
        both.release()
        #expect(await bothEdges.next() == nil)
    }

    @Test func activeLowButtonPressIsALogicalRisingEdge() async throws {
        let chip = self.chip
        let button = try chip.request(.offset(3), GPIOLineConfiguration(.input(edges: .both), activeLow: true, bias: .pullUp))
        var edges = try button.edges().makeAsyncIterator()
        try chip.drive(.offset(3), high: false)
        #expect(await edges.next()?.value == true)
    }
}
