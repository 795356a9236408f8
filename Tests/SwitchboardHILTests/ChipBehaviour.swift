import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// What a GPIO chip must do for Switchboard, checked the same way on every bench: the simulated
/// chip on any machine, the kernel's gpio-sim chip through libgpiod in the HIL VM. Where the two
/// differ, the simulated chip is wrong.
enum ChipBehaviour: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case outputStartsAtItsInitialValueAndReadsBack
    case activeLowOutputInvertsTheLevel
    case inputReadsTheDrivenLevel
    case biasSetsAnUndrivenLine
    case edgesFollowTheDetectionWithMonotonicTimestamps
    case requestingIsNoEdge
    case debounceTurnsChatterIntoOneEdge
    case kernelDebounceTurnsChatterIntoOneEdge
    case reconfiguringKeepsTheLine
    case busyLineNamesItsHolder
    case releaseFreesTheLineAndLeavesItToThePull
    case linesByNameAndOffset
    case wrongDirectionIsRefused

    var testDescription: String { rawValue }

    func check(on bench: some GPIOBench) async throws {
        let chip = bench.chip
        let name = chip.info.name
        switch self {
        case .outputStartsAtItsInitialValueAndReadsBack:
            let relay = try chip.request(.offset(1), GPIOLineConfiguration(.output(initialValue: true)))
            #expect(try bench.level(1) == true, "the initial value is in the request itself")
            #expect(try relay.value() == true)
            try relay.setValue(false)
            #expect(try bench.level(1) == false)
            #expect(try relay.value() == false)
            try relay.setValue(true)
            #expect(try bench.level(1) == true)

        case .activeLowOutputInvertsTheLevel:
            let relay = try chip.request(.offset(2), GPIOLineConfiguration(.output(initialValue: true), activeLow: true))
            #expect(try bench.level(2) == false)
            try relay.setValue(false)
            #expect(try bench.level(2) == true)
            #expect(try relay.value() == false)

        case .inputReadsTheDrivenLevel:
            let contact = try chip.request(.offset(3), GPIOLineConfiguration(.input()))
            try bench.drive(3, high: true)
            #expect(try contact.value() == true)
            try bench.drive(3, high: false)
            #expect(try contact.value() == false)
            let button = try chip.request(.offset(4), GPIOLineConfiguration(.input(), activeLow: true))
            try bench.drive(4, high: false)
            #expect(try button.value() == true, "an active-low input reads 1 when pulled low")

        case .biasSetsAnUndrivenLine:
            let fresh = try chip.request(.offset(6), GPIOLineConfiguration(.input()))
            #expect(try fresh.value() == false, "an undriven line starts pulled down")
            fresh.release()
            let up = try chip.request(.offset(6), GPIOLineConfiguration(.input(), bias: .pullUp))
            #expect(try up.value() == true)
            #expect(try bench.level(6) == true)
            up.release()
            let down = try chip.request(.offset(6), GPIOLineConfiguration(.input(), bias: .pullDown))
            #expect(try down.value() == false)

        case .edgesFollowTheDetectionWithMonotonicTimestamps:
            let both = try chip.request(.offset(3), GPIOLineConfiguration(.input(edges: .both)))
            let rising = try chip.request(.offset(4), GPIOLineConfiguration(.input(edges: .rising), activeLow: true, bias: .pullUp))
            let bothEdges = EdgeCollector(try both.edges())
            let risingEdges = EdgeCollector(try rising.edges())
            // Each edge is read before the next: the kernel's v1 interface reports the level at
            // the time it handles an interrupt, so edges closer than that merge (see debounce).
            let before = chip.now
            for (count, level) in [true, false, true].enumerated() {
                try bench.drive(3, high: level)
                _ = await bothEdges.wait(for: count + 1)
            }
            let after = chip.now
            let seen = bothEdges.seen
            #expect(seen.map(\.value) == [true, false, true])
            #expect(seen.map(\.offset) == [3, 3, 3])
            #expect(seen.map(\.timestamp) == seen.map(\.timestamp).sorted())
            #expect(seen.allSatisfy { (before...after).contains($0.timestamp) }, "stamped on the chip's clock: \(before)…\(after), \(seen)")
            // Pressed (low: a logical rising edge), released (falling: not asked for), pressed.
            try bench.drive(4, high: false)
            #expect(await risingEdges.wait(for: 1).map(\.value) == [true])
            try bench.drive(4, high: true)
            try await Task.sleep(for: .milliseconds(250))
            try bench.drive(4, high: false)
            #expect(await risingEdges.wait(for: 2).map(\.value) == [true, true])
            try await Task.sleep(for: .milliseconds(250))
            #expect(risingEdges.seen.count == 2, "the release was not reported")

        case .requestingIsNoEdge:
            let button = try chip.request(.offset(5), GPIOLineConfiguration(.input(edges: .both), activeLow: true, bias: .pullUp))
            let edges = EdgeCollector(try button.edges())
            #expect(try button.value() == false, "pulled up: released")
            try bench.drive(5, high: false)
            #expect(await edges.wait(for: 1).map(\.value) == [true], "the first edge is the press, not the request's bias")

        case .debounceTurnsChatterIntoOneEdge:
            let button = try chip.request(.name("button"), GPIOLineConfiguration(.input(edges: .both)))
            #expect(button.kernelDebounce == .zero)
            try await Self.checkDebounce(DebouncedInput(button, window: bench.debounceWindow), on: bench)

        case .kernelDebounceTurnsChatterIntoOneEdge:
            // The kernel debounces where libgpiod 2.x asks it to; elsewhere DebouncedInput does.
            let button = try chip.request(.name("button"), GPIOLineConfiguration(.input(edges: .both), debounce: bench.debounceWindow))
            #expect(button.kernelDebounce == (bench.debouncesInKernel ? bench.debounceWindow : .zero))
            try await Self.checkDebounce(DebouncedInput(button, window: bench.debounceWindow), on: bench)

        case .reconfiguringKeepsTheLine:
            let relay = try chip.request(.offset(1), GPIOLineConfiguration(.output(initialValue: true), consumer: "relay"))
            #expect(try bench.level(1) == true)
            #expect(try relay.reconfigure(GPIOLineConfiguration(.output(initialValue: true), activeLow: true, consumer: "relay")))
            #expect(try bench.level(1) == false, "active-low now: logical 1 is the low level")
            #expect(try relay.value() == true)
            #expect(relay.configuration.activeLow)
            #expect { try chip.request(.offset(1), GPIOLineConfiguration(.input())) } throws: { ($0 as? GPIOError)?.code == .lineBusy }
            #expect(try relay.reconfigure(GPIOLineConfiguration(.input(), bias: .pullUp, consumer: "relay")))
            #expect(try relay.value() == true, "an input pulled up reads 1")
            #expect(try bench.level(1) == true)
            #expect { try relay.setValue(true) } throws: { ($0 as? GPIOError)?.code == .wrongDirection }
            #expect(try relay.reconfigure(GPIOLineConfiguration(.input(edges: .both), consumer: "relay")) == false, "edge detection stays as requested")
            #expect(relay.configuration.direction == .input(edges: nil))

        case .busyLineNamesItsHolder:
            let held = try chip.request(.offset(0), GPIOLineConfiguration(.output(initialValue: false), consumer: "heater-app"))
            #expect {
                try chip.request(.name("relay"), GPIOLineConfiguration(.input()))
            } throws: { error in
                let error = error as? GPIOError
                return error?.code == .lineBusy && error?.consumer == "heater-app"
                    && error?.description == "\(name) line relay is busy: held by \"heater-app\"; stop that program or choose another line"
            }
            held.release()
            _ = try chip.request(.offset(0), GPIOLineConfiguration(.input()))

        case .releaseFreesTheLineAndLeavesItToThePull:
            let relay = try chip.request(.offset(1), GPIOLineConfiguration(.output(initialValue: true)))
            relay.release()
            #expect(try bench.level(1) == false, "a released output falls back to its pull (down)")
            #expect { try relay.setValue(true) } throws: { ($0 as? GPIOError)?.code == .released }
            let pulledUp = try chip.request(.offset(2), GPIOLineConfiguration(.output(initialValue: false), bias: .pullUp))
            #expect(try bench.level(2) == false)
            pulledUp.release()
            #expect(try bench.level(2) == true, "a released output falls back to its pull (up)")
            let again = try chip.request(.offset(1), GPIOLineConfiguration(.input()))
            #expect(try again.value() == false)

        case .linesByNameAndOffset:
            #expect(try chip.offset(of: .name("relay")) == 0)
            #expect(try chip.offset(of: .name("button")) == 5)
            let relay = try chip.request(.name("relay"), GPIOLineConfiguration(.output(initialValue: true)))
            #expect(relay.offset == 0)
            #expect(try bench.level(0) == true)
            #expect {
                try chip.request(.name("GPIO99"), GPIOLineConfiguration(.input()))
            } throws: { error in
                (error as? GPIOError)?.description == "\(name) has no line named \"GPIO99\"; use the line's offset or its name from `gpioinfo \(name)`"
            }
            #expect {
                try chip.request(.offset(8), GPIOLineConfiguration(.input()))
            } throws: { error in
                (error as? GPIOError)?.description == "\(name) line 8 is out of range for \(name) (0…7)"
            }

        case .wrongDirectionIsRefused:
            let input = try chip.request(.offset(3), GPIOLineConfiguration(.input()))
            #expect { try input.setValue(true) } throws: { ($0 as? GPIOError)?.description == "\(name) line 3: wrong direction: it is an input and cannot be set" }
            #expect { try input.edges() } throws: { ($0 as? GPIOError)?.description == "\(name) line 3: wrong direction: it was requested without edge detection" }
            let output = try chip.request(.offset(4), GPIOLineConfiguration(.output(initialValue: false)))
            #expect { try output.edges() } throws: { ($0 as? GPIOError)?.description == "\(name) line 4: wrong direction: it is an output and has no edges" }
        }
    }
}

extension ChipBehaviour {
    /// Chatter settling high is one edge; chatter settling back is none; a clean edge is one.
    static func checkDebounce(_ input: DebouncedInput, on bench: some GPIOBench) async throws {
        let window = bench.debounceWindow
        let accepted = Probe<[GPIOEdgeEvent]>([])
        try await withRunningService({ await input.run { edge in accepted.update { $0.append(edge) } } }) {
            let started = ContinuousClock.now
            for level in [true, false, true, false, true] { try bench.drive(5, high: level) }
            let chatter = ContinuousClock.now - started
            // Patient: the suite starts hundreds of tests at once, and under ThreadSanitizer the
            // debouncer's timer may wait seconds for a thread; what counts is which edges come.
            #expect(await accepted.wait(timeout: .seconds(30)) { !$0.isEmpty }?.map(\.value) == [true], "chatter driven in \(chatter), window \(window)")
            try bench.drive(5, high: false)
            try bench.drive(5, high: true)
            try? await Task.sleep(for: window * 2 + .milliseconds(100))
            #expect(accepted.value.map(\.value) == [true], "chatter that settles back is no edge")
            try bench.drive(5, high: false)
            #expect(await accepted.wait(timeout: .seconds(30)) { $0.count == 2 }?.map(\.value) == [true, false])
        }
    }
}

/// Collects a line's edges as they come, for tests that wait for a number of them.
final class EdgeCollector: Sendable {
    private let edges = Probe<[GPIOEdgeEvent]>([])
    private let task: Task<Void, Never>

    init(_ edges: GPIOEdgeEvents) {
        let seen = self.edges
        task = Task { for await edge in edges { seen.update { $0.append(edge) } } }
    }

    deinit { task.cancel() }

    /// The edges seen so far.
    var seen: [GPIOEdgeEvent] { edges.value }

    /// The edges seen once there are `count` of them, or all seen after 10 s.
    func wait(for count: Int) async -> [GPIOEdgeEvent] {
        await edges.wait { $0.count >= count } ?? edges.value
    }
}
