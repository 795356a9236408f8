/// An accessory's setup code, "XXX-XX-XXX", the SRP password of pair-setup.
public struct SetupCode: Sendable, Equatable, CustomStringConvertible {
    /// The code with its dashes, as the Home app shows it and as SRP hashes it.
    public let description: String

    /// The codes HAP forbids: all one digit, and 123-45-678 and 876-54-321.
    static let forbidden: Set<String> = Set((0...9).map { d in "\(d)\(d)\(d)-\(d)\(d)-\(d)\(d)\(d)" } + ["123-45-678", "876-54-321"])

    /// The code `text`; throws when it is not eight digits as "XXX-XX-XXX" or is one HAP forbids.
    public init(_ text: String) throws(SetupCodeError) {
        let characters = Array(text)
        let shaped = characters.count == 10 && characters.enumerated().allSatisfy { index, character in
            index == 3 || index == 6 ? character == "-" : character.isASCII && character.isNumber
        }
        guard shaped else { throw SetupCodeError(code: text, reason: "expected eight digits as XXX-XX-XXX, e.g. 031-45-154") }
        guard !SetupCode.forbidden.contains(text) else {
            throw SetupCodeError(code: text, reason: "HAP forbids this code (one digit repeated, 123-45-678, 876-54-321): choose another")
        }
        description = text
    }
}

/// A setup code that HAP would not accept.
public struct SetupCodeError: Error, Equatable, CustomStringConvertible {
    public var code: String
    public var reason: String

    public var description: String { "setup code \"\(code)\": \(reason)" }
}
