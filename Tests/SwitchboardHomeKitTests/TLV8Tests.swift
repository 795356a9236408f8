import SwitchboardHomeKit
import Testing

@Suite struct TLV8Tests {
    @Test func shortItemsRoundTrip() throws {
        let tlv = TLV8([.init(6, [1]), .init(0, [0]), .init(1, Array("Pair-Setup".utf8))])
        let bytes = tlv.encoded()
        #expect(bytes == [6, 1, 1, 0, 1, 0, 1, 10] + Array("Pair-Setup".utf8))
        #expect(try TLV8(decoding: bytes) == tlv)
        #expect(try TLV8(decoding: bytes)[1] == Array("Pair-Setup".utf8))
    }

    @Test func longValueIsSentInFragmentsOf255AndJoined() throws {
        let key = (0..<384).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = TLV8([.init(3, key), .init(6, [2])]).encoded()
        #expect(bytes.count == 2 + 255 + 2 + 129 + 3)
        #expect(Array(bytes[0..<2]) == [3, 255])
        #expect(Array(bytes[257..<259]) == [3, 129])
        let decoded = try TLV8(decoding: bytes)
        #expect(decoded.items == [.init(3, key), .init(6, [2])])
    }

    @Test func valueOfExactly255BytesFollowedByAnotherOfTheSameTypeNeedsASeparator() throws {
        let first = [UInt8](repeating: 1, count: 255)
        let list = TLV8([.init(1, first), .init(TLV8.separator, []), .init(1, [2])])
        let decoded = try TLV8(decoding: list.encoded())
        #expect(decoded.splitAtSeparators() == [TLV8([.init(1, first)]), TLV8([.init(1, [2])])])
    }

    @Test func itemsOfTheSameTypeAfterAFullFragmentStaySeparate() throws {
        // Found by the fuzzer: a 255-byte item, then another of its type (decoded from an empty
        // fragment between them) must not merge when encoded again.
        let decoded = try TLV8(decoding: [0, 255] + [UInt8](repeating: 7, count: 255) + [0, 0, 0, 2, 8, 9])
        #expect(decoded.items == [.init(0, [UInt8](repeating: 7, count: 255)), .init(0, [8, 9])])
        #expect(try TLV8(decoding: decoded.encoded()) == decoded)
        let fuzzed: [UInt8] = [0, 255] + [UInt8](repeating: 1, count: 255) + [0, 0, 0, 255] + [UInt8](repeating: 2, count: 255) + [0, 0, 0, 1, 3]
        let items = try TLV8(decoding: fuzzed)
        #expect(try TLV8(decoding: items.encoded()) == items)
    }

    @Test func emptyValueIsOneEmptyItem() throws {
        #expect(TLV8([.init(0xFF, [])]).encoded() == [0xFF, 0])
        #expect(try TLV8(decoding: [0xFF, 0]).items == [.init(0xFF, [])])
    }

    @Test(arguments: [[UInt8]([6]), [6, 2, 1], [6, 1, 1, 3, 255]])
    func truncatedItemIsRefused(bytes: [UInt8]) {
        #expect(throws: TLV8DecodingError.self) { try TLV8(decoding: bytes) }
    }
}
