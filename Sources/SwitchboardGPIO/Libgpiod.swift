import CGPIODAdapter
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every call into Switchboard's GPIO adapter (`CGPIODAdapter`), in one place. The adapter is
/// compiled against whichever libgpiod the machine has: 1.x (Debian 12, Raspberry Pi OS Bookworm)
/// or 2.x (Debian 13, Raspberry Pi OS Trixie); this file is the same for both. Each function names
/// the adapter call it wraps and turns failures into ``GPIOError``s.
enum Libgpiod {
    /// `sb_gpio_api_major`: 1 or 2.
    static var majorVersion: Int { Int(sb_gpio_api_major()) }

    /// `sb_gpio_api_version`: libgpiod's version ("1.6.3", "2.2.1").
    static var version: String { String(cString: sb_gpio_api_version()) }

    /// `sb_gpio_kernel_debounce`: whether requests can ask the kernel to debounce edges.
    static var kernelDebounce: Bool { sb_gpio_kernel_debounce() != 0 }

    /// `sb_gpio_chip_open`: the chip at a path; a missing chip's error lists the chips there are.
    static func openChip(path: String) throws -> OpaquePointer {
        do {
            return try open(path)
        } catch let error as GPIOError where error.code == .chipNotFound {
            var failure = error
            failure.availableChips = LibgpiodChip.availableChips().map(\.description)
            throw failure
        }
    }

    /// The name, label and line count of the chip at a path, opened and closed again. Its error
    /// lists no other chips: the scan of /dev uses it.
    static func chipInfo(atPath path: String) throws -> GPIOChipInfo {
        let chip = try open(path)
        defer { closeChip(chip) }
        return info(of: chip, path: path)
    }

    /// `sb_gpio_chip_open`, with its failure as a ``GPIOError``.
    private static func open(_ path: String) throws -> OpaquePointer {
        if let chip = sb_gpio_chip_open(path) { return chip }
        let error = Errno.current
        if error == .permissionDenied || error == .notPermitted {
            var failure = GPIOError(.permissionDenied, chip: path)
            failure.call = "gpiod_chip_open"
            failure.errno = error
            throw failure
        }
        throw GPIOError(.chipNotFound, chip: path)
    }

    /// `sb_gpio_chip_close`.
    static func closeChip(_ chip: OpaquePointer) { sb_gpio_chip_close(chip) }

    /// `sb_gpio_chip_get_info`: name, label and line count.
    static func info(of chip: OpaquePointer, path: String) -> GPIOChipInfo {
        var info = sb_gpio_chip_info()
        _ = sb_gpio_chip_get_info(chip, &info)
        let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let label = withUnsafeBytes(of: info.label) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return GPIOChipInfo(name: name, label: label, path: path, lineCount: Int(info.num_lines))
    }


    /// `sb_gpio_chip_find_line`: the offset of a named line, or nil.
    static func offset(ofLineNamed name: String, in chip: OpaquePointer) -> Int? {
        let offset = sb_gpio_chip_find_line(chip, name)
        return offset >= 0 ? Int(offset) : nil
    }

    /// `sb_gpio_chip_line_consumer`: who holds a line now.
    static func consumer(ofLine offset: Int, in chip: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard sb_gpio_chip_line_consumer(chip, UInt32(offset), &buffer, buffer.count) == 1 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `sb_gpio_line_request`: one line with its direction, edges, flags, kernel debounce and
    /// initial value in one request.
    static func request(offset: Int, _ configuration: GPIOLineConfiguration, in chip: OpaquePointer, chipName: String, lineName: String) throws -> OpaquePointer {
        var settings = settings(configuration)
        let line = configuration.consumer.withCString { sb_gpio_line_request(chip, UInt32(offset), $0, &settings) }
        if let line { return line }
        let error = Errno.current
        switch error {
        case .resourceBusy:
            var failure = GPIOError(.lineBusy, chip: chipName, line: lineName)
            failure.consumer = consumer(ofLine: offset, in: chip)
            throw failure
        case .permissionDenied, .notPermitted:
            var failure = GPIOError(.permissionDenied, chip: chipName, line: lineName)
            failure.call = "gpiod line request"
            failure.errno = error
            throw failure
        default:
            throw ioFailure("gpiod line request", chip: chipName, line: lineName, errno: error)
        }
    }

    /// `sb_gpio_line_reconfigure`: new settings for a requested line, without releasing it.
    /// - Returns: false where libgpiod cannot change them in place (1.x, lines with edges).
    static func reconfigure(_ line: OpaquePointer, _ configuration: GPIOLineConfiguration, chipName: String, lineName: String) throws -> Bool {
        var settings = settings(configuration)
        guard sb_gpio_line_reconfigure(line, &settings) == 0 else {
            let error = Errno.current
            if error == Errno(EOPNOTSUPP) { return false }
            throw ioFailure("gpiod line reconfigure", chip: chipName, line: lineName, errno: error)
        }
        return true
    }

    /// `sb_gpio_line_release`.
    static func release(_ line: OpaquePointer) { sb_gpio_line_release(line) }

    /// `sb_gpio_line_get_value`.
    static func value(of line: OpaquePointer, chipName: String, lineName: String) throws -> Bool {
        let value = sb_gpio_line_get_value(line)
        guard value >= 0 else { throw ioFailure("gpiod get value", chip: chipName, line: lineName) }
        return value == 1
    }

    /// `sb_gpio_line_set_value`.
    static func setValue(_ value: Bool, of line: OpaquePointer, chipName: String, lineName: String) throws {
        guard sb_gpio_line_set_value(line, value ? 1 : 0) == 0 else {
            throw ioFailure("gpiod set value", chip: chipName, line: lineName)
        }
    }

    /// `sb_gpio_line_fd`: readable when edges wait.
    static func eventDescriptor(of line: OpaquePointer) -> Int32 { sb_gpio_line_fd(line) }

    /// `sb_gpio_line_read_events`: the edges waiting on a line, as (logical value,
    /// CLOCK_MONOTONIC timestamp). Empty when the read failed.
    static func readEvents(from line: OpaquePointer) -> [(value: Bool, timestamp: Duration)] {
        var events = [sb_gpio_event](repeating: sb_gpio_event(), count: 16)
        let count = sb_gpio_line_read_events(line, &events, UInt32(events.count))
        guard count > 0 else { return [] }
        return events.prefix(Int(count)).map { event in
            (value: event.rising != 0, timestamp: .nanoseconds(Int64(event.timestamp_ns)))
        }
    }

    private static func settings(_ configuration: GPIOLineConfiguration) -> sb_gpio_settings {
        var settings = sb_gpio_settings()
        settings.active_low = configuration.activeLow ? 1 : 0
        settings.bias = switch configuration.bias {
        case .asIs: Int32(SB_GPIO_BIAS_AS_IS.rawValue)
        case .disabled: Int32(SB_GPIO_BIAS_DISABLED.rawValue)
        case .pullUp: Int32(SB_GPIO_BIAS_PULL_UP.rawValue)
        case .pullDown: Int32(SB_GPIO_BIAS_PULL_DOWN.rawValue)
        }
        switch configuration.direction {
        case .output(let initialValue, let drive):
            settings.direction = Int32(SB_GPIO_OUTPUT.rawValue)
            settings.output_value = initialValue ? 1 : 0
            settings.drive = switch drive {
            case .pushPull: Int32(SB_GPIO_PUSH_PULL.rawValue)
            case .openDrain: Int32(SB_GPIO_OPEN_DRAIN.rawValue)
            case .openSource: Int32(SB_GPIO_OPEN_SOURCE.rawValue)
            }
        case .input(let edges):
            settings.direction = Int32(SB_GPIO_INPUT.rawValue)
            settings.edges = switch edges {
            case nil: Int32(SB_GPIO_EDGES_NONE.rawValue)
            case .rising: Int32(SB_GPIO_EDGES_RISING.rawValue)
            case .falling: Int32(SB_GPIO_EDGES_FALLING.rawValue)
            case .both: Int32(SB_GPIO_EDGES_BOTH.rawValue)
            }
            let microseconds = configuration.debounce.components.seconds * 1_000_000 + configuration.debounce.components.attoseconds / 1_000_000_000_000
            settings.debounce_us = UInt64(max(0, microseconds))
        }
        return settings
    }

    private static func ioFailure(_ call: String, chip: String, line: String?, errno error: Errno = .current) -> GPIOError {
        var failure = GPIOError(.ioFailed, chip: chip, line: line)
        failure.call = call
        failure.errno = error
        return failure
    }
}
