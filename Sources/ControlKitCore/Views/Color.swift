/// A tint colour: one of the system colours, or any colour given as RGB.
///
/// Tint colours the symbol and value text of a toggle while it is on (the system blue when none is set).
public struct Color: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The colour's name: a system colour's (`"purple"`) or `"#RRGGBB"` for a custom one.
    public let name: String
    /// Red, green and blue, 0…255.
    public let rgb: (red: UInt8, green: UInt8, blue: UInt8)

    private init(name: String, _ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.name = name
        self.rgb = (red, green, blue)
    }

    /// A colour from components in 0…1.
    public init(red: Double, green: Double, blue: Double) {
        func byte(_ value: Double) -> UInt8 { UInt8((min(max(value, 0), 1) * 255).rounded()) }
        let (r, g, b) = (byte(red), byte(green), byte(blue))
        self.init(name: Color.hex(r, g, b), r, g, b)
    }

    /// The system colour with this name, or a `#RRGGBB` colour; nil for anything else.
    public init?(named name: String) {
        if let system = Color.system.first(where: { $0.name == name }) {
            self = system
            return
        }
        guard name.count == 7, name.first == "#", let value = UInt32(name.dropFirst(), radix: 16) else { return nil }
        let (r, g, b) = (UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        self.init(name: Color.hex(r, g, b), r, g, b)
    }

    private static func hex(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "#" + String([r, g, b].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    public static let red = Color(name: "red", 255, 59, 48)
    public static let orange = Color(name: "orange", 255, 149, 0)
    public static let yellow = Color(name: "yellow", 255, 204, 0)
    public static let green = Color(name: "green", 52, 199, 89)
    public static let mint = Color(name: "mint", 0, 199, 190)
    public static let teal = Color(name: "teal", 48, 176, 199)
    public static let cyan = Color(name: "cyan", 50, 173, 230)
    public static let blue = Color(name: "blue", 0, 122, 255)
    public static let indigo = Color(name: "indigo", 88, 86, 214)
    public static let purple = Color(name: "purple", 175, 82, 222)
    public static let pink = Color(name: "pink", 255, 45, 85)
    public static let brown = Color(name: "brown", 162, 132, 94)
    public static let gray = Color(name: "gray", 142, 142, 147)
    public static let white = Color(name: "white", 255, 255, 255)
    public static let black = Color(name: "black", 0, 0, 0)

    /// Every system colour, in the order above.
    public static let system: [Color] = [
        .red, .orange, .yellow, .green, .mint, .teal, .cyan, .blue, .indigo, .purple, .pink, .brown, .gray, .white, .black,
    ]

    /// The tint used when a control sets none.
    public static let accentColor = Color.blue

    public var description: String { name }

    public static func == (lhs: Color, rhs: Color) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let color = Color(named: name) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\"\(name)\" is not a colour: use a system colour name (\(Color.system.map(\.name).joined(separator: ", "))) or #RRGGBB"
            )
        }
        self = color
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

extension Color: ShapeStyle {}

/// A style that can tint a control. Only ``Color`` is one in ControlKit.
public protocol ShapeStyle: Sendable {}
