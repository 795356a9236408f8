import SwitchboardGPIO
import SwitchboardTesting

/// A chip on the test bench with a hand and a meter: drive an input from outside, read the level
/// a line is at. The same behaviour checks run on the simulated chip and on the kernel's.
protocol GPIOBench: Sendable {
    /// The chip under test, as Switchboard uses it.
    var chip: any GPIOChip { get }
    /// Drives a line from outside (a button, a wire).
    func drive(_ offset: Int, high: Bool) throws
    /// The line's physical level.
    func level(_ offset: Int) throws -> Bool
    /// Whether the chip's requests can have the kernel debounce edges.
    var debouncesInKernel: Bool { get }
    /// The debounce window of the chatter checks: far longer than five drives of the line take.
    var debounceWindow: Duration { get }
}

/// Lines every bench names, as a board's device tree would.
let benchLineNames: [Int: String] = [0: "relay", 5: "button"]
let benchLineCount = 8

/// Switchboard's simulated chip.
struct SimulatedBench: GPIOBench {
    let simulated: SimulatedGPIOChip

    init() {
        simulated = SimulatedGPIOChip(name: "gpiochip0", label: "bench", lineNames: (0..<benchLineCount).map { benchLineNames[$0] })
    }

    var chip: any GPIOChip { simulated }
    func drive(_ offset: Int, high: Bool) throws { try simulated.drive(.offset(offset), high: high) }
    func level(_ offset: Int) throws -> Bool { try simulated.physicalLevel(.offset(offset)) }
    var debouncesInKernel: Bool { false }
    var debounceWindow: Duration { .milliseconds(250) }
}

/// A gpio-sim chip made for the test, opened through libgpiod.
struct KernelBench: GPIOBench {
    let simulated: KernelSimulatedChip
    let opened: LibgpiodChip

    /// A fresh chip labelled `label` (unique per test).
    init(label: String) throws {
        simulated = try KernelSimulatedChip(label: label, lineCount: benchLineCount, lineNames: benchLineNames)
        opened = try LibgpiodChip(path: simulated.path)
    }

    var chip: any GPIOChip { opened }
    func drive(_ offset: Int, high: Bool) throws { try simulated.setPull(offset, high: high) }
    func level(_ offset: Int) throws -> Bool { try simulated.level(offset) }
    var debouncesInKernel: Bool { LibgpiodChip.supportsKernelDebounce }
    /// Five writes to gpio-sim in the emulated VM on a busy host took longer than 250 ms, once.
    var debounceWindow: Duration { .seconds(1) }
}
