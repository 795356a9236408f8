import Foundation
import SwitchboardTesting
import Testing

/// Whether the kernel tests run here: always inside the HIL VM (`deploy/hil/vm.sh` sets
/// `SWITCHBOARD_HIL=1`, and a missing gpio-sim must then fail, not skip), elsewhere only where
/// the kernel has gpio-sim. `deploy/test.sh` runs them in the VM and leaves them out on the host.
enum HILStage {
    static let inVM = ProcessInfo.processInfo.environment["SWITCHBOARD_HIL"] == "1"
    static var canRun: Bool { inVM || KernelSimulatedChip.isAvailable }
    static let reason: Comment = "needs the kernel's gpio-sim driver: run deploy/hil/test.sh"
}
