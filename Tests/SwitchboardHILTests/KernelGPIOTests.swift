import Foundation
import SwitchboardGPIO
import SwitchboardTesting
import Testing

/// The libgpiod adapter against real kernel GPIO chips made by gpio-sim: the behaviour checks the
/// simulated chip passes, then what only a kernel has (paths, labels, other processes).
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .timeLimit(.minutes(5)))
struct KernelGPIOTests {
    @Test(arguments: ChipBehaviour.allCases)
    func kernelChip(_ behaviour: ChipBehaviour) async throws {
        try await behaviour.check(on: KernelBench(label: "sb-" + behaviour.rawValue))
    }

    @Test func chipOpensByPathNameAndLabel() throws {
        let simulated = try KernelSimulatedChip(label: "sb-lookup", lineCount: 4)
        let expected = GPIOChipInfo(name: simulated.name, label: "sb-lookup", path: simulated.path, lineCount: 4)
        #expect(try LibgpiodChip(path: simulated.path).info == expected)
        #expect(try LibgpiodChip(locating: simulated.path).info == expected)
        #expect(try LibgpiodChip(locating: simulated.name).info == expected)
        #expect(try LibgpiodChip(locating: "sb-lookup").info == expected)
        #expect(LibgpiodChip.availableChips().contains(expected))
    }

    @Test func missingChipListsTheChipsThatExist() throws {
        let simulated = try KernelSimulatedChip(label: "sb-present", lineCount: 3)
        #expect {
            _ = try LibgpiodChip(locating: "sb-absent")
        } throws: { error in
            guard let error = error as? GPIOError else { return false }
            return error.code == .chipNotFound && error.availableChips.contains("\(simulated.name) [sb-present] (3 lines)")
                && error.description.hasPrefix("GPIO chip \"sb-absent\" not found; chips here: ")
                && error.description.contains("\(simulated.name) [sb-present] (3 lines)")
        }
    }

    @Test func lineHeldByAnotherProcessNamesIt() async throws {
        let simulated = try KernelSimulatedChip(label: "sb-busy", lineCount: 4)
        let chip = try LibgpiodChip(path: simulated.path)
        // libgpiod's tools changed their arguments in 2.x; there gpioset holds the line until signalled by default.
        let arguments = LibgpiodChip.libraryVersion.hasPrefix("libgpiod 1.") ? ["--mode=signal", simulated.name, "2=1"] : ["-c", simulated.name, "2=1"]
        let holder = try ChildProcess("/usr/bin/gpioset", arguments)
        defer { _ = holder.stop(signal: SIGTERM) }
        // gpioset holds the line once it has started and drives it high. Waiting on the level
        // rather than probing with requests: a probe holding the line when gpioset asks for it
        // would make gpioset fail and exit.
        let driven = Probe<Bool>(false)
        _ = await driven.wait(timeout: .seconds(30)) { _ in
            let high = (try? simulated.level(2)) == true
            if high { driven.update { $0 = true } }
            return high
        }
        #expect(driven.value, "gpioset drove line 2 high")
        var refused: GPIOError?
        do {
            try chip.request(.offset(2), GPIOLineConfiguration(.input())).release()
        } catch {
            refused = error as? GPIOError
        }
        let error = try #require(refused)
        #expect(error.code == .lineBusy)
        #expect(error.description == "\(simulated.name) line 2 is busy: held by \"gpioset\"; stop that program or choose another line")
        #expect(try simulated.level(2) == true, "gpioset drives it high")
    }

    @Test func closingTheChipReleasesItsLines() async throws {
        let simulated = try KernelSimulatedChip(label: "sb-close", lineCount: 4)
        do {
            let chip = try LibgpiodChip(path: simulated.path)
            let relay = try chip.request(.offset(1), GPIOLineConfiguration(.output(initialValue: true), consumer: "first"))
            #expect(try simulated.level(1) == true)
            _ = relay
        }
        // The kernel frees the line with the last reference to its request; a process that other
        // tests are spawning right now holds one (inherited) until its exec, so allow for that.
        let other = try LibgpiodChip(path: simulated.path)
        let second = Probe<(any GPIOLineRequest)?>(nil)
        _ = await second.wait(timeout: .seconds(10)) { _ in
            guard let relay = try? other.request(.offset(1), GPIOLineConfiguration(.output(initialValue: false), consumer: "second")) else { return false }
            second.update { $0 = relay }
            return true
        }
        #expect(second.value != nil, "the line was freed when its request and chip were")
        #expect(try simulated.level(1) == false)
    }
}
