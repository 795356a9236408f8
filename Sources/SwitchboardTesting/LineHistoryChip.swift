import SwitchboardGPIO
import SwitchboardSupport

/// A chip that keeps the history of every write to its lines and, right after each write, reads
/// the `guarded` lines' levels where they really are (the simulated chip's physical level, or
/// gpio-sim's `value` in the kernel) and records every moment two of them were high together.
///
/// An output's level changes only when it is written, and a write and the check that follows it
/// happen under one lock, so no other write comes between them: a check after every write sees
/// every moment the guarded lines were ever high together, however short. This is the line
/// history the interlock tests check.
public final class LineHistoryChip: GPIOChip {
    /// One write: the line, the value written, and when (on the chip's clock, ``GPIOChip/now``).
    public typealias Write = (line: Int, high: Bool, at: Duration)

    /// The chip the lines are really on.
    public let base: any GPIOChip
    /// The lines that must never be high together.
    public let guarded: Set<Int>
    private let readLevel: @Sendable (Int) throws -> Bool
    private let history = Locked<(writes: [Write], overlaps: [String])>(([], []))

    /// - Parameter level: reads a line's physical level from outside the request (for gpio-sim,
    ///   `KernelSimulatedChip.level(_:)`).
    public init(_ base: any GPIOChip, guarded: Set<Int>, level: @escaping @Sendable (Int) throws -> Bool) {
        self.base = base
        self.guarded = guarded
        readLevel = level
    }

    /// The simulated chip, its lines' levels read with ``SimulatedGPIOChip/physicalLevel(_:)``.
    public convenience init(_ base: SimulatedGPIOChip, guarded: Set<Int>) {
        self.init(base, guarded: guarded) { try base.physicalLevel(.offset($0)) }
    }

    /// Every write so far, in order.
    public var writes: [Write] { history.withLock { $0.writes } }
    /// Each moment two guarded lines were high together ("lines [1, 2] high together after 2=1"):
    /// empty when the interlock held.
    public var overlaps: [String] { history.withLock { $0.overlaps } }

    /// A line's physical level now.
    public func level(_ offset: Int) throws -> Bool { try readLevel(offset) }

    public var info: GPIOChipInfo { base.info }
    public var now: Duration { base.now }
    public func offset(of line: GPIOLineSelector) throws -> Int { try base.offset(of: line) }
    public func request(_ line: GPIOLineSelector, _ configuration: GPIOLineConfiguration) throws -> any GPIOLineRequest {
        RecordedLine(try base.request(line, configuration), chip: self)
    }

    /// Writes through `line` and checks the guarded lines before any other write can happen.
    func write(_ value: Bool, through line: any GPIOLineRequest) throws {
        try history.withLock { history in
            try line.setValue(value)
            history.writes.append((line.offset, value, base.now))
            let high = guarded.filter { (try? readLevel($0)) == true }.sorted()
            if high.count > 1 { history.overlaps.append("lines \(high) high together after \(line.offset)=\(value ? 1 : 0)") }
        }
    }

    /// A requested line whose writes go through ``LineHistoryChip/write(_:through:)``.
    final class RecordedLine: GPIOLineRequest {
        let line: any GPIOLineRequest
        let chip: LineHistoryChip
        init(_ line: any GPIOLineRequest, chip: LineHistoryChip) {
            self.line = line
            self.chip = chip
        }
        var offset: Int { line.offset }
        var configuration: GPIOLineConfiguration { line.configuration }
        var kernelDebounce: Duration { line.kernelDebounce }
        func value() throws -> Bool { try line.value() }
        func setValue(_ value: Bool) throws { try chip.write(value, through: line) }
        func edges() throws -> GPIOEdgeEvents { try line.edges() }
        func reconfigure(_ configuration: GPIOLineConfiguration) throws -> Bool { try line.reconfigure(configuration) }
        func release() { line.release() }
    }
}
