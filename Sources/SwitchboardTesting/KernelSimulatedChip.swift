#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A real GPIO chip made by the kernel's `gpio-sim` driver through configfs: `/dev/gpiochipN`,
/// line requests, bias, edges and busy lines as on a board, with inputs driven and outputs read
/// through sysfs. Needs a kernel with `CONFIG_GPIO_SIM` (the hardware-in-the-loop VM) and root.
/// The chip is removed when this value is freed.
public final class KernelSimulatedChip: Sendable {
    /// Where gpio-sim's configfs tree is mounted.
    public static let configRoot = "/sys/kernel/config/gpio-sim"

    /// Whether this machine can make gpio-sim chips.
    public static var isAvailable: Bool { access(configRoot, W_OK) == 0 }

    /// The configfs folder of this device.
    public let configDirectory: String
    /// `gpiochipN`.
    public let name: String
    /// `/dev/gpiochipN`.
    public var path: String { "/dev/" + name }
    /// The chip's label.
    public let label: String
    /// The sysfs folder holding each line's `sim_gpioN/pull` and `value`.
    public let sysfsDirectory: String
    private let lineNames: [Int: String]

    /// Makes and brings up a chip of `lineCount` lines, naming the lines in `lineNames`. The
    /// configfs folder is named `configName`, the label by default: give chips sharing a label
    /// (a Pi 5's `gpio-brcmstb` chips) each their own.
    /// - Throws: ``KernelSimulatedChipError`` naming the configfs or sysfs file that failed.
    public init(label: String, lineCount: Int, lineNames: [Int: String] = [:], configName: String? = nil) throws {
        let directory = Self.configRoot + "/" + (configName ?? label)
        configDirectory = directory
        self.label = label
        self.lineNames = lineNames
        try Self.makeDirectory(directory)
        try Self.makeDirectory(directory + "/bank0")
        try Self.write(String(lineCount), to: directory + "/bank0/num_lines")
        try Self.write(label, to: directory + "/bank0/label")
        for (offset, lineName) in lineNames.sorted(by: { $0.key < $1.key }) {
            try Self.makeDirectory(directory + "/bank0/line\(offset)")
            try Self.write(lineName, to: directory + "/bank0/line\(offset)/name")
        }
        try Self.write("1", to: directory + "/live")
        name = try Self.read(directory + "/bank0/chip_name")
        sysfsDirectory = "/sys/devices/platform/" + (try Self.read(directory + "/dev_name")) + "/" + name
    }

    deinit {
        _ = try? Self.write("0", to: configDirectory + "/live")
        for offset in lineNames.keys { rmdir(configDirectory + "/bank0/line\(offset)") }
        rmdir(configDirectory + "/bank0")
        rmdir(configDirectory)
    }

    /// Drives an input from outside by setting the simulated pull: edges reach line requests.
    public func setPull(_ offset: Int, high: Bool) throws {
        try Self.write(high ? "pull-up" : "pull-down", to: sysfsDirectory + "/sim_gpio\(offset)/pull")
    }

    /// The line's physical level: what an output drives, or an input's pull.
    public func level(_ offset: Int) throws -> Bool {
        try Self.read(sysfsDirectory + "/sim_gpio\(offset)/value") == "1"
    }

    private static func makeDirectory(_ path: String) throws {
        do {
            try SystemCall.mkdir(path, mode: 0o755)
        } catch {
            throw KernelSimulatedChipError(path: path, operation: "mkdir", errno: error)
        }
    }

    private static func write(_ text: String, to path: String) throws {
        let descriptor: Int32
        do {
            descriptor = try SystemCall.open(path, O_WRONLY)
        } catch {
            throw KernelSimulatedChipError(path: path, operation: "open", errno: error)
        }
        defer { SystemCall.close(descriptor) }
        do {
            try SystemCall.writeAll(Array(text.utf8), to: descriptor)
        } catch {
            throw KernelSimulatedChipError(path: path, operation: "write \"\(text)\" to", errno: error)
        }
    }

    /// The first line of a configfs or sysfs attribute.
    private static func read(_ path: String) throws -> String {
        do {
            return String(decoding: try SystemFiles.read(path).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        } catch {
            throw KernelSimulatedChipError(path: path, operation: error.call, errno: error.errno)
        }
    }
}

/// A gpio-sim configfs or sysfs file could not be used.
public struct KernelSimulatedChipError: Error, CustomStringConvertible {
    public let path: String
    public let operation: String
    public let errno: Errno

    public var description: String {
        "gpio-sim: cannot \(operation) \(path): \(errno.message); the kernel needs CONFIG_GPIO_SIM and configfs at /sys/kernel/config (run the tests through deploy/hil/test.sh)"
    }
}
