import CGPIOD
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every libgpiod call Switchboard makes, in one place. This is the libgpiod 1.x adapter
/// (Debian 12, Raspberry Pi OS Bookworm); a 2.x adapter would sit beside it behind the same
/// ``GPIOChip`` protocol. Each function names the C call it wraps and turns failures into
/// ``GPIOError``s.
enum Libgpiod {
    /// `gpiod_chip_open_lookup`: a chip by path, name, label or number.
    static func openChip(_ descriptor: String) throws -> OpaquePointer {
        if let chip = gpiod_chip_open_lookup(descriptor) { return chip }
        let error = Glibc.errno
        if error == EACCES || error == EPERM {
            var failure = GPIOError(.permissionDenied, chip: descriptor)
            failure.call = "gpiod_chip_open_lookup"
            failure.errno = error
            throw failure
        }
        var failure = GPIOError(.chipNotFound, chip: descriptor)
        failure.availableChips = availableChips().map(\.description)
        throw failure
    }

    /// `gpiod_chip_close`.
    static func closeChip(_ chip: OpaquePointer) { gpiod_chip_close(chip) }

    /// `gpiod_chip_name`, `gpiod_chip_label`, `gpiod_chip_num_lines`.
    static func info(of chip: OpaquePointer, path: String) -> GPIOChipInfo {
        GPIOChipInfo(
            name: String(cString: gpiod_chip_name(chip)),
            label: String(cString: gpiod_chip_label(chip)),
            path: path,
            lineCount: Int(gpiod_chip_num_lines(chip))
        )
    }

    /// The chips under /dev, each opened with `gpiod_chip_open` to read its label.
    static func availableChips() -> [GPIOChipInfo] {
        let paths = SystemFiles.names(in: "/dev").filter { $0.hasPrefix("gpiochip") }.map { "/dev/" + $0 }
        return paths.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }.compactMap { path in
            guard let chip = gpiod_chip_open(path) else { return nil }
            defer { gpiod_chip_close(chip) }
            return info(of: chip, path: path)
        }
    }

    /// `gpiod_chip_get_line`.
    static func line(_ chip: OpaquePointer, offset: Int, chipName: String) throws -> OpaquePointer {
        guard let line = gpiod_chip_get_line(chip, UInt32(offset)) else {
            throw ioFailure("gpiod_chip_get_line", chip: chipName, line: String(offset))
        }
        return line
    }

    /// `gpiod_chip_find_line`: the offset of a named line, or nil.
    static func offset(ofLineNamed name: String, in chip: OpaquePointer) -> Int? {
        guard let line = gpiod_chip_find_line(chip, name) else { return nil }
        return Int(gpiod_line_offset(line))
    }

    /// `gpiod_line_request`, with the direction, edges, flags and initial value in one request.
    static func request(_ line: OpaquePointer, _ configuration: GPIOLineConfiguration, chipName: String, lineName: String) throws {
        var flags: Int32 = 0
        if configuration.activeLow { flags |= Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) }
        switch configuration.bias {
        case .asIs: break
        case .disabled: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        }
        let requestType: Int32
        var defaultValue: Int32 = 0
        switch configuration.direction {
        case .output(let initialValue, let drive):
            requestType = Int32(GPIOD_LINE_REQUEST_DIRECTION_OUTPUT)
            defaultValue = initialValue ? 1 : 0
            switch drive {
            case .pushPull: break
            case .openDrain: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN)
            case .openSource: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_OPEN_SOURCE)
            }
        case .input(let edges):
            switch edges {
            case nil: requestType = Int32(GPIOD_LINE_REQUEST_DIRECTION_INPUT)
            case .rising: requestType = Int32(GPIOD_LINE_REQUEST_EVENT_RISING_EDGE)
            case .falling: requestType = Int32(GPIOD_LINE_REQUEST_EVENT_FALLING_EDGE)
            case .both: requestType = Int32(GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES)
            }
        }
        let result = configuration.consumer.withCString { consumer in
            var config = gpiod_line_request_config(consumer: consumer, request_type: requestType, flags: flags)
            return gpiod_line_request(line, &config, defaultValue)
        }
        guard result == 0 else {
            let error = Glibc.errno
            switch error {
            case EBUSY:
                var failure = GPIOError(.lineBusy, chip: chipName, line: lineName)
                failure.consumer = consumer(of: line)
                throw failure
            case EACCES, EPERM:
                var failure = GPIOError(.permissionDenied, chip: chipName, line: lineName)
                failure.call = "gpiod_line_request"
                failure.errno = error
                throw failure
            default:
                throw ioFailure("gpiod_line_request", chip: chipName, line: lineName, errno: error)
            }
        }
    }

    /// `gpiod_line_update` then `gpiod_line_consumer`: who holds a line now.
    static func consumer(of line: OpaquePointer) -> String? {
        _ = gpiod_line_update(line)
        guard let consumer = gpiod_line_consumer(line) else { return nil }
        return String(cString: consumer)
    }

    /// `gpiod_line_release`.
    static func release(_ line: OpaquePointer) { gpiod_line_release(line) }

    /// `gpiod_line_get_value`.
    static func value(of line: OpaquePointer, chipName: String, lineName: String) throws -> Bool {
        let value = gpiod_line_get_value(line)
        guard value >= 0 else { throw ioFailure("gpiod_line_get_value", chip: chipName, line: lineName) }
        return value == 1
    }

    /// `gpiod_line_set_value`.
    static func setValue(_ value: Bool, of line: OpaquePointer, chipName: String, lineName: String) throws {
        guard gpiod_line_set_value(line, value ? 1 : 0) == 0 else {
            throw ioFailure("gpiod_line_set_value", chip: chipName, line: lineName)
        }
    }

    /// `gpiod_line_event_get_fd`.
    static func eventDescriptor(of line: OpaquePointer) -> Int32 { gpiod_line_event_get_fd(line) }

    /// `gpiod_line_event_read_fd_multiple`: the events waiting on a line's event descriptor, as
    /// (logical value, CLOCK_MONOTONIC timestamp). Empty when none wait or the read failed.
    static func readEvents(from descriptor: Int32) -> [(value: Bool, timestamp: Duration)] {
        var events = [gpiod_line_event](repeating: gpiod_line_event(), count: 16)
        let count = gpiod_line_event_read_fd_multiple(descriptor, &events, UInt32(events.count))
        guard count > 0 else { return [] }
        return events.prefix(Int(count)).map { event in
            (
                value: event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE),
                timestamp: .seconds(Int64(event.ts.tv_sec)) + .nanoseconds(Int64(event.ts.tv_nsec))
            )
        }
    }

    private static func ioFailure(_ call: String, chip: String, line: String?, errno error: Int32 = Glibc.errno) -> GPIOError {
        var failure = GPIOError(.ioFailed, chip: chip, line: line)
        failure.call = call
        failure.errno = error
        failure.systemMessage = String(cString: strerror(error))
        return failure
    }
}
