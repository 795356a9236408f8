/// A symbol image: the glyph a control shows in every space and size.
///
/// Controls use SF Symbols names (`"lightbulb.fill"`, `"hourglass"`); Switchboard keeps the name
/// and each surface draws it its own way (the terminal maps names to glyphs).
public struct Image: View, Sendable, Hashable {
    /// The symbol's name.
    public let systemName: String

    /// Creates an image of the named system symbol.
    public init(systemName: String) { self.systemName = systemName }

    /// Creates an image from the app's assets: on a board, whose controls have no asset catalog,
    /// the name is kept as the symbol's.
    public init(_ name: String) { self.systemName = name }

    public typealias Body = Never
}

extension Image: _PrimitiveView {
    func _resolve(into label: inout ResolvedLabel) {
        if label.symbol == nil { label.symbol = systemName }
    }
}
