import Testing

/// The behaviour checks on Switchboard's simulated chip (any machine). `KernelGPIOTests` runs the
/// same checks on the kernel's gpio-sim chip in the HIL VM.
@Suite(.timeLimit(.minutes(2)))
struct SimulatedChipBehaviourTests {
    @Test(arguments: ChipBehaviour.allCases)
    func simulatedChip(_ behaviour: ChipBehaviour) async throws {
        try await behaviour.check(on: SimulatedBench())
    }
}
