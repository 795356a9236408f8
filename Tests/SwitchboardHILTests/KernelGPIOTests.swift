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
        #expect(try LibgpiodChip(simulated.path).info == expected)
        #expect(try LibgpiodChip(simulated.name).info == expected)
        #expect(try LibgpiodChip("sb-lookup").info == expected)
        #expect(LibgpiodChip.availableChips().contains(expected))
    }

    @Test func missingChipListsTheChipsThatExist() throws {
        let simulated = try KernelSimulatedChip(label: "sb-present", lineCount: 3)
        #expect {
            _ = try LibgpiodChip("pinctrl-bcm2835")
        } throws: { error in
            guard let error = error as? GPIOError else { return false }
            return error.code == .chipNotFound && error.availableChips.contains("\(simulated.name) [sb-present] (3 lines)")
                && error.description.hasPrefix("GPIO chip \"pinctrl-bcm2835\" not found; chips here: ")
                && error.description.contains("\(simulated.name) [sb-present] (3 lines)")
        }
    }

    @Test func lineHeldByAnotherProcessNamesIt() async throws {
        let simulated = try KernelSimulatedChip(label: "sb-busy", lineCount: 4)
        let chip = try LibgpiodChip(simulated.path)
        // libgpiod's tools changed their arguments in 2.x; there gpioset holds the line until signalled by default.
        let arguments = LibgpiodChip.libraryVersion.hasPrefix("libgpiod 1.") ? ["--mode=signal", simulated.name, "2=1"] : ["-c", simulated.name, "2=1"]
        let holder = try ChildProcess("/usr/bin/gpioset", arguments)
        defer { _ = holder.stop(signal: SIGTERM) }
        // gpioset holds the line once it has started; until then the line is free.
        let busy = Probe<GPIOError?>(nil)
        _ = await busy.wait(timeout: .seconds(30)) { _ in
            do {
                try chip.request(.offset(2), GPIOLineConfiguration(.input())).release()
                return false
            } catch {
                busy.update { $0 = error as? GPIOError }
                return true
            }
        }
        let error = try #require(busy.value)
        #expect(error.code == .lineBusy)
        #expect(error.description == "\(simulated.name) line 2 is busy: held by \"gpioset\"; stop that program or choose another line")
        #expect(try simulated.level(2) == true, "gpioset drives it high")
    }

    @Test func closingTheChipReleasesItsLines() throws {
        let simulated = try KernelSimulatedChip(label: "sb-close", lineCount: 4)
        do {
            let chip = try LibgpiodChip(simulated.path)
            let relay = try chip.request(.offset(1), GPIOLineConfiguration(.output(initialValue: true), consumer: "first"))
            #expect(try simulated.level(1) == true)
            _ = relay
        }
        let other = try LibgpiodChip(simulated.path)
        let relay = try other.request(.offset(1), GPIOLineConfiguration(.output(initialValue: false), consumer: "second"))
        #expect(try simulated.level(1) == false)
        _ = relay
    }
}
