/// HAP's TLV8 encoding (type, length, value; one byte each for type and length): values longer
/// than 255 bytes are sent as consecutive fragments of the same type, and items of a list are
/// parted by a zero-length separator (type 0xFF).
public struct TLV8: Equatable, Sendable {
    /// One item: its type and its whole (reassembled) value.
    public struct Item: Equatable, Sendable {
        public var type: UInt8
        public var value: [UInt8]

        public init(_ type: UInt8, _ value: [UInt8]) {
            self.type = type
            self.value = value
        }
    }

    /// The separator type between items of a list.
    public static let separator: UInt8 = 0xFF

    /// The items in order.
    public var items: [Item]

    public init(_ items: [Item] = []) { self.items = items }

    /// The items of `bytes`, fragments joined; throws when an item runs past the end.
    public init(decoding bytes: [UInt8]) throws(TLV8DecodingError) {
        var items: [Item] = []
        var lastFragmentWasFull = false
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count else {
                throw TLV8DecodingError(offset: offset, detail: "expected a type and a length byte, found only 1 byte")
            }
            let type = bytes[offset]
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length <= bytes.count else {
                throw TLV8DecodingError(offset: offset, detail: "item of type \(type) says \(length) bytes, only \(bytes.count - offset - 2) follow")
            }
            let value = bytes[(offset + 2)..<(offset + 2 + length)]
            if lastFragmentWasFull, let last = items.last, last.type == type {
                items[items.count - 1].value += value
            } else {
                items.append(Item(type, Array(value)))
            }
            lastFragmentWasFull = length == 255
            offset += 2 + length
        }
        self.items = items
    }

    /// The bytes: each value in fragments of at most 255 bytes (an empty value as one empty
    /// item).
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, item) in items.enumerated() {
            var rest = item.value[...]
            repeat {
                let fragment = rest.prefix(255)
                bytes.append(item.type)
                bytes.append(UInt8(fragment.count))
                bytes += fragment
                rest = rest.dropFirst(fragment.count)
            } while !rest.isEmpty
            // A value ending on a full fragment would swallow a next item of its type: an empty
            // fragment ends it (the reader joins it, then starts a new item).
            if !item.value.isEmpty, item.value.count % 255 == 0, index + 1 < items.count, items[index + 1].type == item.type {
                bytes += [item.type, 0]
            }
        }
        return bytes
    }

    /// The value of the first item of `type`, or nil.
    public subscript(type: UInt8) -> [UInt8]? {
        items.first { $0.type == type }?.value
    }

    /// Appends an item.
    public mutating func append(_ type: UInt8, _ value: [UInt8]) {
        items.append(Item(type, value))
    }

    /// The lists' members: the items between separators (a list of pairings, for instance).
    public func splitAtSeparators() -> [TLV8] {
        var groups: [TLV8] = [TLV8()]
        for item in items {
            if item.type == TLV8.separator {
                groups.append(TLV8())
            } else {
                groups[groups.count - 1].items.append(item)
            }
        }
        return groups.filter { !$0.items.isEmpty }
    }
}

/// TLV8 bytes that end inside an item.
public struct TLV8DecodingError: Error, Equatable, CustomStringConvertible {
    /// Where the broken item starts.
    public var offset: Int
    public var detail: String

    public var description: String { "TLV8 at byte \(offset): \(detail); the peer sent a truncated or corrupt message" }
}
