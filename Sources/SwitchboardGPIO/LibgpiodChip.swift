import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SwitchboardSupport

/// A real GPIO chip through libgpiod (1.x or 2.x, whichever the machine has). Owns its chip
/// handle and closes it when freed.
public final class LibgpiodChip: GPIOChip {
    // Invariant: the handle is used only under the mutex, and closed once, in deinit.
    private let handle: Locked<OpaquePointer>
    public let info: GPIOChipInfo

    /// Opens the chip at a path (`/dev/gpiochip0`), and nothing else.
    /// - Throws: ``GPIOError`` `.chipNotFound` listing the chips that exist, or `.permissionDenied`.
    public init(path: String) throws {
        let chip = try Libgpiod.openChip(path: path)
        info = Libgpiod.info(of: chip, path: path)
        handle = Locked(chip)
    }

    deinit {
        handle.withLock { Libgpiod.closeChip($0) }
    }

    /// The libgpiod this build uses: "libgpiod 2.2.1".
    public static var libraryVersion: String { "libgpiod \(Libgpiod.version)" }

    /// Whether line requests can have the kernel debounce an input's edges (libgpiod 2.x; the
    /// kernel debounces in software where the chip cannot). Without it, ``DebouncedInput`` does.
    public static var supportsKernelDebounce: Bool { Libgpiod.kernelDebounce }

    /// CLOCK_MONOTONIC, the clock the kernel stamps line events with.
    public var now: Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
    }

    /// The chips on this machine: every `/dev/gpiochip*` (``scanDeviceFiles(in:)``), each chip
    /// once however many files lead to it.
    public static func availableChips() -> [GPIOChipInfo] {
        var seen = Set<UInt64>()
        return scanDeviceFiles().files.filter { seen.insert($0.deviceNumber).inserted }.map(\.info)
    }

    public func offset(of line: GPIOLineSelector) throws -> Int {
        switch line {
        case .offset(let offset):
            guard (0..<info.lineCount).contains(offset) else {
                var error = GPIOError(.lineOutOfRange, chip: info.name, line: String(offset))
                error.validOffsets = info.lineCount > 0 ? 0...(info.lineCount - 1) : nil
                throw error
            }
            return offset
        case .name(let name):
            guard let offset = handle.withLock({ Libgpiod.offset(ofLineNamed: name, in: $0) }) else {
                throw GPIOError(.lineNotFound, chip: info.name, line: name)
            }
            return offset
        }
    }

    public func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest {
        let offset = try self.offset(of: line)
        let lineHandle = try handle.withLock { chip in
            try Libgpiod.request(offset: offset, configuration, in: chip, chipName: info.name, lineName: line.description)
        }
        return LibgpiodLineRequest(chip: self, line: lineHandle, offset: offset, name: line.description, configuration: configuration)
    }
}
