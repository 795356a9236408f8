import SwitchboardGPIO
import SwitchboardConfiguration

extension GPIOSettings {
    /// How an input is requested: both edges reported, with its bias, active-low and debounce
    /// window (the kernel debounces over it where it can: libgpiod 2.x).
    var inputConfiguration: GPIOLineConfiguration {
        GPIOLineConfiguration(.input(edges: .both), activeLow: activeLow, bias: bias, debounce: debounce)
    }

    /// Requests the line as an input (``inputConfiguration``) and debounces its edges: in the
    /// kernel where the request says it does (``GPIOLineRequest/kernelDebounce``), otherwise with
    /// ``Debouncer`` over ``debounce`` on `clock`. An Action button and an input device alike.
    /// - Returns: the line and its debounced edges (buffered from now until they are run).
    /// - Throws: ``GPIOError`` naming the line; nothing stays requested then.
    func requestInput(on chip: any GPIOChip, clock: some Clock<Duration>) throws -> (line: any GPIOLineRequest, edges: DebouncedInput) {
        let line = try chip.request(self.line, inputConfiguration)
        do {
            return (line, try DebouncedInput(line, window: debounce, clock: clock))
        } catch {
            line.release()
            throw error
        }
    }
}
