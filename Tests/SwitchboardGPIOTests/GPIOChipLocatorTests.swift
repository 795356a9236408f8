import SwitchboardGPIO
import Testing

/// Which chip each devices.json `chip` descriptor leads to on each Raspberry Pi's chip layout,
/// with the exact reasons, warnings and errors.
@Suite struct GPIOChipLocatorTests {
    /// `/dev/gpiochipN`, the own file of the chip the kernel numbered N.
    static func file(_ number: Int, _ label: String, _ lines: Int) -> GPIOChipLocator.DeviceFile {
        GPIOChipLocator.DeviceFile(path: "/dev/gpiochip\(number)", deviceNumber: UInt64((254 << 8) + number), info: info(number, label, lines))
    }

    static func info(_ number: Int, _ label: String, _ lines: Int) -> GPIOChipInfo {
        GPIOChipInfo(name: "gpiochip\(number)", label: label, path: "/dev/gpiochip\(number)", lineCount: lines)
    }

    /// `/dev/gpiochip<number>` as a link to `target` (as a Pi 5's udev rule makes gpiochip4).
    static func link(_ number: Int, to target: GPIOChipLocator.DeviceFile) -> GPIOChipLocator.DeviceFile {
        GPIOChipLocator.DeviceFile(path: "/dev/gpiochip\(number)", deviceNumber: target.deviceNumber, info: target.info)
    }

    static let pi3 = [file(0, "pinctrl-bcm2835", 54), file(1, "raspberrypi-exp-gpio", 8)]
    static let pi4 = [file(0, "pinctrl-bcm2711", 58), file(1, "raspberrypi-exp-gpio", 8)]
    /// A Pi 5 on its launch kernels: the SoC's four gpio-brcmstb chips first, the header fifth.
    static let pi5Launch = [
        file(0, "gpio-brcmstb@107d508500", 32), file(1, "gpio-brcmstb@107d508520", 4),
        file(2, "gpio-brcmstb@107d517c00", 17), file(3, "gpio-brcmstb@107d517c20", 6),
        file(4, "pinctrl-rp1", 54),
    ]
    /// A Pi 5 on 6.6 kernels: the header is gpiochip0, gpiochip4 a link to it.
    static let pi5Current: [GPIOChipLocator.DeviceFile] = {
        let header = file(0, "pinctrl-rp1", 54)
        return [
            header, link(4, to: header),
            file(10, "gpio-brcmstb@107d508500", 32), file(11, "gpio-brcmstb@107d508520", 4),
            file(12, "gpio-brcmstb@107d517c00", 17), file(13, "gpio-brcmstb@107d517c20", 6),
        ]
    }()
    /// A Pi 5 on 6.12 kernels: every chip at 10 or above, the header at gpiochip13.
    static let pi5Kernel612 = [
        file(10, "gpio-brcmstb@107d508500", 32), file(11, "gpio-brcmstb@107d508520", 4),
        file(12, "gpio-brcmstb@107d517c00", 17), file(13, "pinctrl-rp1", 54),
        file(14, "gpio-brcmstb@107d517c20", 6),
    ]

    func locate(_ descriptor: String, on files: [GPIOChipLocator.DeviceFile]) throws -> GPIOChipLocation {
        try GPIOChipLocator(files).locate(descriptor)
    }

    func error(_ descriptor: String, on files: [GPIOChipLocator.DeviceFile]) -> GPIOError? {
        do {
            _ = try locate(descriptor, on: files)
            return nil
        } catch {
            return error as? GPIOError
        }
    }

    // MARK: header

    @Test func headerOnAPi3IsPinctrlBcm2835() throws {
        let location = try locate("header", on: Self.pi3)
        #expect(location == GPIOChipLocation(
            descriptor: "header", path: "/dev/gpiochip0", info: Self.info(0, "pinctrl-bcm2835", 54),
            reason: "the Raspberry Pi 1–3 or Zero header (label pinctrl-bcm2835)"
        ))
        #expect(location.description == #"chip "header" is gpiochip0 [pinctrl-bcm2835] (54 lines): the Raspberry Pi 1–3 or Zero header (label pinctrl-bcm2835)"#)
    }

    @Test func headerOnAPi4IsPinctrlBcm2711() throws {
        let location = try locate("header", on: Self.pi4)
        #expect(location.path == "/dev/gpiochip0" && location.info == Self.info(0, "pinctrl-bcm2711", 58) && location.warning == nil)
        #expect(location.description == #"chip "header" is gpiochip0 [pinctrl-bcm2711] (58 lines): the Raspberry Pi 4 header (label pinctrl-bcm2711)"#)
    }

    @Test func headerOnAPi5LaunchKernelIsGpiochip4NotGpiochip0() throws {
        let location = try locate("header", on: Self.pi5Launch)
        #expect(location.path == "/dev/gpiochip4" && location.info == Self.info(4, "pinctrl-rp1", 54) && location.warning == nil)
        #expect(location.description == #"chip "header" is gpiochip4 [pinctrl-rp1] (54 lines): the Raspberry Pi 5 header (label pinctrl-rp1)"#)
    }

    @Test func headerOnAPi5With612KernelIsGpiochip13() throws {
        let location = try locate("header", on: Self.pi5Kernel612)
        #expect(location.path == "/dev/gpiochip13" && location.info == Self.info(13, "pinctrl-rp1", 54))
        #expect(location.description == #"chip "header" is gpiochip13 [pinctrl-rp1] (54 lines): the Raspberry Pi 5 header (label pinctrl-rp1)"#)
    }

    @Test func headerIsFoundWhateverOrderTheFilesAreListedIn() throws {
        let locator = GPIOChipLocator(Self.pi5Kernel612.reversed())
        #expect(locator.chips.map(\.info.name) == ["gpiochip10", "gpiochip11", "gpiochip12", "gpiochip13", "gpiochip14"])
        #expect(try locator.locate("header").path == "/dev/gpiochip13")
    }

    @Test func linkToTheHeaderCountsOnce() throws {
        let locator = GPIOChipLocator(Self.pi5Current)
        #expect(locator.chips.count == 5)
        #expect(locator.chips[0].info == Self.info(0, "pinctrl-rp1", 54))
        #expect(locator.chips[0].paths == ["/dev/gpiochip0", "/dev/gpiochip4"])
        let location = try locator.locate("header")
        #expect(location.path == "/dev/gpiochip0")
        #expect(location.description == #"chip "header" is gpiochip0 [pinctrl-rp1] (54 lines): the Raspberry Pi 5 header (label pinctrl-rp1)"#)
    }

    @Test func linkListedBeforeItsChipStillNamesTheChipByItsOwnFile() {
        let locator = GPIOChipLocator(Self.pi5Current.reversed())
        #expect(locator.chips[0].info.path == "/dev/gpiochip0")
        #expect(locator.chips[0].paths == ["/dev/gpiochip0", "/dev/gpiochip4"])
    }

    @Test func noHeaderChipIsRefusedListingTheChipsThatExist() {
        let files = [Self.file(0, "gpio-mockup-A", 8), Self.file(1, "mcp23017", 16)]
        let refused = error("header", on: files)
        #expect(refused?.code == .headerNotFound)
        #expect(refused?.availableChips == ["gpiochip0 [gpio-mockup-A] (8 lines)", "gpiochip1 [mcp23017] (16 lines)"])
        #expect(refused?.description == """
            GPIO chip "header" not found: no chip here is a Raspberry Pi's 40-pin header (labelled pinctrl-bcm2835, pinctrl-bcm2711 or \
            pinctrl-rp1); chips here: gpiochip0 [gpio-mockup-A] (8 lines), gpiochip1 [mcp23017] (16 lines); name one of them by path, \
            name or label instead of "header"
            """)
    }

    @Test func noChipsAtAllSuggestsTheSimulatedHeader() {
        #expect(error("header", on: [])?.description == """
            GPIO chip "header" not found: no chip here is a Raspberry Pi's 40-pin header (labelled pinctrl-bcm2835, pinctrl-bcm2711 or \
            pinctrl-rp1); this machine has no GPIO chips (no /dev/gpiochip*); run switchboardd --simulate to use the simulated header
            """)
    }

    @Test func twoHeaderChipsAreAmbiguous() {
        let refused = error("header", on: Self.pi4 + [Self.file(2, "pinctrl-rp1", 54)])
        #expect(refused?.code == .chipAmbiguous)
        #expect(refused?.description == """
            GPIO chip "header" is ambiguous: 2 chips match: gpiochip0 [pinctrl-bcm2711] (58 lines), gpiochip2 [pinctrl-rp1] (54 lines); \
            name one of them by path (/dev/gpiochipN) or name (gpiochipN) instead
            """)
    }

    // MARK: explicit chips win

    @Test func pathNameNumberAndLabelAreHonouredExactly() throws {
        let brcmstb = Self.info(0, "gpio-brcmstb@107d508500", 32)
        #expect(try locate("/dev/gpiochip0", on: Self.pi5Launch).info == brcmstb)
        #expect(try locate("gpiochip0", on: Self.pi5Launch).info == brcmstb)
        #expect(try locate("0", on: Self.pi5Launch).info == brcmstb)
        #expect(try locate("gpio-brcmstb@107d508500", on: Self.pi5Launch).info == brcmstb)
        #expect(try locate("gpiochip2", on: Self.pi5Launch).info == Self.info(2, "gpio-brcmstb@107d517c00", 17))
        #expect(try locate("gpiochip0", on: Self.pi4).info == Self.info(0, "pinctrl-bcm2711", 58))
    }

    @Test func explicitHeaderChipIsNamedWithItsModelAndNoWarning() throws {
        let byPath = try locate("/dev/gpiochip4", on: Self.pi5Launch)
        #expect(byPath.description == #"chip "/dev/gpiochip4" is gpiochip4 [pinctrl-rp1] (54 lines): found by path, the Raspberry Pi 5 header (label pinctrl-rp1)"#)
        #expect(byPath.warning == nil && !byPath.isHeader)
        let byName = try locate("gpiochip4", on: Self.pi5Launch)
        #expect(byName.description == #"chip "gpiochip4" is gpiochip4 [pinctrl-rp1] (54 lines): found by name, the Raspberry Pi 5 header (label pinctrl-rp1)"#)
        let byNumber = try locate("4", on: Self.pi5Launch)
        #expect(byNumber.path == "/dev/gpiochip4")
        #expect(byNumber.description == #"chip "4" is gpiochip4 [pinctrl-rp1] (54 lines): found by number, the Raspberry Pi 5 header (label pinctrl-rp1)"#)
        let byLabel = try locate("pinctrl-rp1", on: Self.pi5Launch)
        #expect(byLabel == GPIOChipLocation(descriptor: "pinctrl-rp1", path: "/dev/gpiochip4", info: Self.info(4, "pinctrl-rp1", 54), reason: "found by label"))
    }

    @Test func linkNamedByPathOrNameOpensTheLinkAndSaysWhereItLeads() throws {
        let byPath = try locate("/dev/gpiochip4", on: Self.pi5Current)
        #expect(byPath.path == "/dev/gpiochip4" && byPath.info == Self.info(0, "pinctrl-rp1", 54))
        #expect(byPath.reason == "found by path (/dev/gpiochip4 is a link to gpiochip0), the Raspberry Pi 5 header (label pinctrl-rp1)")
        let byName = try locate("gpiochip4", on: Self.pi5Current)
        #expect(byName.path == "/dev/gpiochip4" && byName.info.name == "gpiochip0" && byName.warning == nil)
        #expect(byName.reason == "found by name (/dev/gpiochip4 is a link to gpiochip0), the Raspberry Pi 5 header (label pinctrl-rp1)")
    }

    @Test func gpiochip0OnAPi5LaunchKernelIsHonouredWithAWarning() throws {
        let location = try locate("gpiochip0", on: Self.pi5Launch)
        #expect(location.path == "/dev/gpiochip0")
        #expect(location.description == #"chip "gpiochip0" is gpiochip0 [gpio-brcmstb@107d508500] (32 lines): found by name"#)
        #expect(location.warning == """
            chip "gpiochip0" is gpiochip0 [gpio-brcmstb@107d508500] (32 lines), not the 40-pin header: the header here is gpiochip4 \
            [pinctrl-rp1] (54 lines), the Raspberry Pi 5 header (label pinctrl-rp1). For the header's pins write "chip": "header"; to \
            keep this chip and silence this warning, name it by its label, "gpio-brcmstb@107d508500"
            """)
    }

    @Test func chipNamedByLabelIsMeantAndNotWarnedAbout() throws {
        #expect(try locate("gpio-brcmstb@107d508500", on: Self.pi5Launch).warning == nil)
        #expect(try locate("raspberrypi-exp-gpio", on: Self.pi4).warning == nil)
    }

    @Test func warningLeavesOutTheLabelWhenOtherChipsShareIt() throws {
        let files = (0..<4).map { Self.file($0, "gpio-brcmstb", 32) } + [Self.file(4, "pinctrl-rp1", 54)]
        #expect(try locate("/dev/gpiochip1", on: files).warning == """
            chip "/dev/gpiochip1" is gpiochip1 [gpio-brcmstb] (32 lines), not the 40-pin header: the header here is gpiochip4 \
            [pinctrl-rp1] (54 lines), the Raspberry Pi 5 header (label pinctrl-rp1). For the header's pins write "chip": "header"
            """)
    }

    @Test func chipsWithoutAHeaderAreNotWarnedAbout() throws {
        #expect(try locate("gpiochip1", on: [Self.file(0, "gpio-mockup-A", 8), Self.file(1, "mcp23017", 16)]).warning == nil)
    }

    @Test func labelSeveralChipsHaveIsAmbiguous() throws {
        let files = (0..<4).map { Self.file($0, "gpio-brcmstb", 32) } + [Self.file(4, "pinctrl-rp1", 54)]
        let refused = error("gpio-brcmstb", on: files)
        #expect(refused?.code == .chipAmbiguous)
        #expect(refused?.availableChips == (0..<4).map { "gpiochip\($0) [gpio-brcmstb] (32 lines)" })
        #expect(try locate("header", on: files).path == "/dev/gpiochip4")
    }

    @Test func unknownChipIsRefusedListingEachChipOnce() {
        let refused = error("gpiochip0", on: Self.pi5Kernel612)
        #expect(refused?.code == .chipNotFound)
        #expect(refused?.description == """
            GPIO chip "gpiochip0" not found; chips here: gpiochip10 [gpio-brcmstb@107d508500] (32 lines), gpiochip11 \
            [gpio-brcmstb@107d508520] (4 lines), gpiochip12 [gpio-brcmstb@107d517c00] (17 lines), gpiochip13 [pinctrl-rp1] (54 lines), \
            gpiochip14 [gpio-brcmstb@107d517c20] (6 lines)
            """)
        #expect(error("/dev/gpiochip9", on: Self.pi5Current)?.availableChips.count == 5, "the link is no second chip")
        #expect(error("pinctrl-bcm2711", on: Self.pi5Current)?.code == .chipNotFound)
        #expect(error("", on: [Self.file(0, "", 8)])?.code == .chipNotFound, "an empty descriptor is no empty label")
    }
}
