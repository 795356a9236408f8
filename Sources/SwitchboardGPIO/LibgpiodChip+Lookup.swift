import SwitchboardSupport

/// Finding a chip by devices.json's `chip` descriptor, the same way on libgpiod 1.x and 2.x: the
/// device files under /dev are scanned here and opened with ``LibgpiodChip/init(path:)``, and
/// ``GPIOChipLocator`` chooses among them.
extension LibgpiodChip {
    /// Every GPIO chip device file in `directory`: each `gpiochipN` (numbers above 9 too, links
    /// included), with the chip behind it opened once (``init(path:)``) to read its name, label
    /// and line count. Files that are not character devices are left out; chips that cannot be
    /// opened (permission denied, most often) come back as `failures`.
    public static func scanDeviceFiles(in directory: String = "/dev") -> (files: [GPIOChipLocator.DeviceFile], failures: [GPIOError]) {
        let paths = SystemFiles.names(in: directory).filter { $0.hasPrefix("gpiochip") }.map { directory + "/" + $0 }
        var files: [GPIOChipLocator.DeviceFile] = []
        var failures: [GPIOError] = []
        var chips: [UInt64: GPIOChipInfo?] = [:]
        for path in paths.sorted(by: GPIOChipLocator.precedes) {
            guard let number = try? SystemFiles.characterDeviceNumber(at: path) else { continue }
            if chips[number] == nil {
                do {
                    chips[number] = try Libgpiod.chipInfo(atPath: path)
                } catch {
                    failures.append(error as? GPIOError ?? GPIOError(.ioFailed, chip: path))
                    chips[number] = .some(nil)
                }
            }
            guard let info = chips[number] ?? nil else { continue }
            files.append(GPIOChipLocator.DeviceFile(path: path, deviceNumber: number, info: info))
        }
        return (files, failures)
    }

    /// The chip a devices.json `chip` descriptor names on this machine, and why (see
    /// ``GPIOChipLocator``): `header`, a path, a name, a number or a label. A path outside /dev's
    /// `gpiochipN` files (a udev link such as `/dev/gpio-relays`) is opened as given.
    /// - Throws: ``GPIOError`` `.headerNotFound`, `.chipNotFound` or `.chipAmbiguous` listing the
    ///   chips; `.permissionDenied` when nothing was found but some chip could not be opened.
    public static func locate(_ descriptor: String) throws -> GPIOChipLocation {
        var (files, failures) = scanDeviceFiles()
        if descriptor.hasPrefix("/"), !files.contains(where: { $0.path == descriptor }),
           let number = try? SystemFiles.characterDeviceNumber(at: descriptor) {
            do {
                files.append(GPIOChipLocator.DeviceFile(path: descriptor, deviceNumber: number, info: try Libgpiod.chipInfo(atPath: descriptor)))
            } catch {
                // Not a GPIO chip: the locator says it was not found, listing the chips there are.
                failures.append(error as? GPIOError ?? GPIOError(.ioFailed, chip: descriptor))
            }
        }
        do {
            return try GPIOChipLocator(files).locate(descriptor)
        } catch let error as GPIOError where error.code == .chipNotFound || error.code == .headerNotFound {
            if let denied = failures.first(where: { $0.code == .permissionDenied }) { throw denied }
            throw error
        }
    }

    /// Opens the chip a devices.json `chip` descriptor names: ``locate(_:)``, then ``init(path:)``.
    /// - Throws: ``GPIOError``, as ``locate(_:)`` and ``init(path:)`` do.
    public convenience init(locating descriptor: String) throws {
        try self.init(path: Self.locate(descriptor).path)
    }
}
