/// Finds the chip a devices.json `chip` descriptor names among the GPIO chips a machine has.
/// Pure: it is given the device files (``LibgpiodChip/scanDeviceFiles(in:)`` reads them), so every
/// board's layout is tested without the board.
///
/// - `header`: the Raspberry Pi's 40-pin header chip, known by its label (``RaspberryPiHeader``)
///   wherever the kernel numbered it: gpiochip0 on a Pi 4, gpiochip4 on a Pi 5's launch kernels.
/// - `/dev/gpiochip4` (a path), `gpiochip4` (a name), `4` (a number, the same as `gpiochip4`) or
///   `pinctrl-rp1` (a label): exactly that chip. Named by path, name or number while it is not the
///   header and a header chip is elsewhere, it comes with a ``GPIOChipLocation/warning``.
///
/// Links to the same chip (a Pi 5's `/dev/gpiochip4` → `gpiochip0`) count as one chip.
public struct GPIOChipLocator: Sendable {
    /// A GPIO chip device file under /dev, and what opening it told.
    public struct DeviceFile: Sendable, Hashable {
        /// `/dev/gpiochip4`: the chip's own file or a link to it.
        public var path: String
        /// The device number behind the path (`st_rdev`, links followed): equal for links to one chip.
        public var deviceNumber: UInt64
        /// The chip's name (as the kernel calls it, whatever the path), label and line count.
        public var info: GPIOChipInfo

        public init(path: String, deviceNumber: UInt64, info: GPIOChipInfo) {
            self.path = path
            self.deviceNumber = deviceNumber
            self.info = info
        }
    }

    /// A chip, once, with every device file leading to it.
    public struct Chip: Sendable, Hashable {
        /// The chip; `path` is its own device file (`/dev/` and its name) when that exists.
        public var info: GPIOChipInfo
        /// Every device file of the chip, its own first.
        public var paths: [String]
        /// The Raspberry Pi header it is, if it is one.
        public var header: RaspberryPiHeader? { RaspberryPiHeader.labelled(info.label) }
    }

    /// The chips, each once, in the kernel's numbering order.
    public let chips: [Chip]

    /// The chips behind `files`; files with one device number are one chip.
    public init(_ files: [DeviceFile]) {
        var order: [UInt64] = []
        var byDevice: [UInt64: [DeviceFile]] = [:]
        for file in files {
            if byDevice[file.deviceNumber] == nil { order.append(file.deviceNumber) }
            byDevice[file.deviceNumber, default: []].append(file)
        }
        chips = order.map { device in
            let files = byDevice[device]!.sorted { Self.precedes($0.path, $1.path) }
            let own = files.first { $0.path == "/dev/" + $0.info.name } ?? files[0]
            var info = own.info
            info.path = own.path
            return Chip(info: info, paths: [own.path] + files.map(\.path).filter { $0 != own.path })
        }.sorted { Self.precedes($0.info.name, $1.info.name) }
    }

    /// The chip `descriptor` names, and why it is that one.
    /// - Throws: ``GPIOError`` `.headerNotFound` (`header` on a machine without a Raspberry Pi
    ///   header chip), `.chipNotFound` or `.chipAmbiguous` (a label several chips have), each
    ///   listing the chips that exist.
    public func locate(_ descriptor: String) throws -> GPIOChipLocation {
        guard !descriptor.isEmpty else { throw notFound(descriptor) }
        if descriptor == RaspberryPiHeader.descriptor { return try header() }
        if descriptor.hasPrefix("/") {
            guard let chip = chips.first(where: { $0.paths.contains(descriptor) }) else { throw notFound(descriptor) }
            return named(descriptor, chip, path: descriptor, how: "path")
        }
        let isNumber = descriptor.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let name = isNumber ? "gpiochip" + descriptor : descriptor
        if let chip = chips.first(where: { $0.paths.contains("/dev/" + name) }) {
            return named(descriptor, chip, path: "/dev/" + name, how: isNumber ? "number" : "name")
        }
        if let chip = chips.first(where: { $0.info.name == name }) {
            return named(descriptor, chip, path: chip.info.path, how: isNumber ? "number" : "name")
        }
        let labelled = chips.filter { $0.info.label == descriptor }
        guard let chip = labelled.first else { throw notFound(descriptor) }
        guard labelled.count == 1 else { throw ambiguous(descriptor, labelled) }
        return GPIOChipLocation(descriptor: descriptor, path: chip.info.path, info: chip.info, reason: "found by label")
    }

    private func header() throws -> GPIOChipLocation {
        let headers = chips.filter { $0.header != nil }
        guard let chip = headers.first, let header = chip.header else {
            var error = GPIOError(.headerNotFound, chip: RaspberryPiHeader.descriptor)
            error.availableChips = chips.map(\.info.description)
            throw error
        }
        guard headers.count == 1 else { throw ambiguous(RaspberryPiHeader.descriptor, headers) }
        return GPIOChipLocation(descriptor: RaspberryPiHeader.descriptor, path: chip.info.path, info: chip.info, reason: header.description)
    }

    /// A chip named by path, name or number: honoured, with a warning when it is not the header
    /// but a header chip is elsewhere (the classic `gpiochip0` on a Pi 5).
    private func named(_ descriptor: String, _ chip: Chip, path: String, how: String) -> GPIOChipLocation {
        var reason = "found by \(how)"
        if path != chip.info.path { reason += " (\(path) is a link to \(chip.info.name))" }
        if let header = chip.header { reason += ", \(header)" }
        var location = GPIOChipLocation(descriptor: descriptor, path: path, info: chip.info, reason: reason)
        if chip.header == nil, let header = chips.first(where: { $0.header != nil }), let model = header.header {
            let unique = chips.filter { $0.info.label == chip.info.label }.count == 1
            location.warning = "chip \"\(descriptor)\" is \(chip.info), not the 40-pin header: the header here is \(header.info), "
                + "\(model). For the header's pins write \"chip\": \"header\""
                + (unique ? "; to keep this chip and silence this warning, name it by its label, \"\(chip.info.label)\"" : "")
        }
        return location
    }

    private func notFound(_ descriptor: String) -> GPIOError {
        var error = GPIOError(.chipNotFound, chip: descriptor)
        error.availableChips = chips.map(\.info.description)
        return error
    }

    private func ambiguous(_ descriptor: String, _ matching: [Chip]) -> GPIOError {
        var error = GPIOError(.chipAmbiguous, chip: descriptor)
        error.availableChips = matching.map(\.info.description)
        return error
    }

    /// Kernel numbering order: `gpiochip2` before `gpiochip10`.
    static func precedes(_ left: String, _ right: String) -> Bool {
        left.count == right.count ? left < right : left.count < right.count
    }
}
