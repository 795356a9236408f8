/// How one value (an entity, an enum case) is shown to people.
public struct DisplayRepresentation: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The main text.
    public var title: LocalizedStringResource
    /// A second line, if any.
    public var subtitle: LocalizedStringResource?
    /// A symbol, if any.
    public var image: Image?

    /// How a representation shows a symbol.
    public struct Image: Sendable, Hashable {
        /// The symbol's name.
        public var systemName: String
        public init(systemName: String) { self.systemName = systemName }
    }

    /// Creates a representation.
    public init(title: LocalizedStringResource, subtitle: LocalizedStringResource? = nil, image: Image? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.image = image
    }

    public init(stringLiteral value: String) { self.init(title: LocalizedStringResource(value)) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(title: LocalizedStringResource(String(stringInterpolation: stringInterpolation)))
    }
}

/// How a type of value (all lights, all timers) is named to people.
public struct TypeDisplayRepresentation: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The type's name.
    public var name: LocalizedStringResource
    /// The plural name, if it differs.
    public var numericFormat: LocalizedStringResource?

    /// Creates a representation.
    public init(name: LocalizedStringResource, numericFormat: LocalizedStringResource? = nil) {
        self.name = name
        self.numericFormat = numericFormat
    }

    public init(stringLiteral value: String) { self.init(name: LocalizedStringResource(value)) }
    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(name: LocalizedStringResource(String(stringInterpolation: stringInterpolation)))
    }
}
