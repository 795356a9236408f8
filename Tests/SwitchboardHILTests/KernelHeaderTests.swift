#if canImport(Glibc)
import Glibc
#endif
import SwitchboardGPIO
import SwitchboardSupport
import SwitchboardTesting
import Testing

/// `"chip": "header"` on kernel chips impersonating each Raspberry Pi: the header chip is found by
/// its label wherever the kernel numbered it, links to it count once, and without one the error
/// lists the chips there are. Serialized, with the daemon tests nested in it (``Daemon``): each
/// test owns every Pi-labelled chip while it runs.
@Suite(.enabled(if: HILStage.canRun, HILStage.reason), .serialized, .timeLimit(.minutes(5)))
struct KernelHeaderTests {
    @Test(arguments: KernelPiBoard.Layout.allCases)
    func headerIsTheChipWithThePisHeaderLabel(_ layout: KernelPiBoard.Layout) throws {
        let board = try KernelPiBoard(layout)
        let header = try #require(board.header)
        let location = try LibgpiodChip.locate("header")
        #expect(location.path == header.path)
        #expect(location.info == GPIOChipInfo(name: header.name, label: layout.header.label, path: header.path, lineCount: layout.header.lineCount))
        #expect(location.description == "chip \"header\" is \(header.name) [\(layout.header.label)] (\(layout.header.lineCount) lines): \(layout.header)")
        let chip = try LibgpiodChip(path: location.path)
        #expect(try chip.offset(of: .name("GPIO17")) == 17)
        #expect(try chip.offset(of: .name("GPIO27")) == 27)
    }

    @Test func pi5LaunchLayoutNumbersTheHeaderAfterTheSoCsChips() throws {
        let board = try KernelPiBoard(.pi5Launch)
        let header = try #require(board.header)
        let number = { (chip: KernelSimulatedChip) in Int(chip.name.dropFirst("gpiochip".count))! }
        #expect(board.others.allSatisfy { number($0) < number(header) })
        let first = board.others[0]
        let named = try LibgpiodChip.locate(first.name)
        #expect(named.info.label == "gpio-brcmstb" && named.path == first.path, "a chip named by name is honoured")
        #expect(named.warning == """
            chip "\(first.name)" is \(first.name) [gpio-brcmstb] (32 lines), not the 40-pin header: the header here is \
            \(header.name) [pinctrl-rp1] (54 lines), the Raspberry Pi 5 header (label pinctrl-rp1). For the header's pins write \
            "chip": "header"
            """)
        #expect(throws: GPIOError.self) { _ = try LibgpiodChip.locate("gpio-brcmstb") }
    }

    @Test func linkToTheHeaderCountsOnce() throws {
        let board = try KernelPiBoard(.pi5Launch)
        let header = try #require(board.header)
        // As a Pi 5's udev rule links gpiochip4 to the header on kernels that renumbered it.
        let link = "/dev/gpiochip99"
        #expect(symlink(header.path, link) == 0, "symlink \(link): \(Errno.current)")
        defer { unlink(link) }
        let scan = LibgpiodChip.scanDeviceFiles()
        #expect(scan.files.filter { $0.info.name == header.name }.map(\.path).sorted() == [header.path, link].sorted())
        let locator = GPIOChipLocator(scan.files)
        #expect(locator.chips.filter { $0.info.label == "pinctrl-rp1" }.count == 1)
        #expect(try LibgpiodChip.locate("header").path == header.path)
        let linked = try LibgpiodChip.locate("gpiochip99")
        #expect(linked.path == link && linked.info.name == header.name)
        #expect(linked.reason == "found by name (\(link) is a link to \(header.name)), the Raspberry Pi 5 header (label pinctrl-rp1)")
        #expect(try LibgpiodChip(path: link).info.label == "pinctrl-rp1")
    }

    @Test func noHeaderChipIsRefusedListingTheChips() throws {
        let board = try KernelPiBoard(.pi5Launch, withHeader: false)
        #expect {
            _ = try LibgpiodChip.locate("header")
        } throws: { error in
            guard let error = error as? GPIOError, error.code == .headerNotFound else { return false }
            let listed = board.others.map { "\($0.name) [gpio-brcmstb]" }
            return listed.allSatisfy { name in error.availableChips.contains { $0.hasPrefix(name) } }
                && error.description.hasPrefix("GPIO chip \"header\" not found: no chip here is a Raspberry Pi's 40-pin header (labelled pinctrl-bcm2835, pinctrl-bcm2711 or pinctrl-rp1); chips here: ")
        }
    }
}
