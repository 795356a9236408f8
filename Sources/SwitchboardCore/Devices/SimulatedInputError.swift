/// Why an input device could not be driven for a test (`switchboard input`): it is not an input,
/// or it sits on a real chip.
public struct SimulatedInputError: Error, Sendable, CustomStringConvertible {
    /// `unknownInput`, `realChip` or `failed`: the socket reply's code.
    public var code: String
    public var message: String
    public var description: String { message }
}
