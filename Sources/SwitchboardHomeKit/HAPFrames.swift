/// The sending side of HAP's encrypted session: each message is cut into frames of at most 1024
/// bytes, each sent as its length (2 bytes, little-endian, also the frame's additional
/// authenticated data), its ChaCha20-Poly1305 ciphertext and 16-byte tag, the nonce the frame
/// counter (`HAPNonce.session(counter:)`), which never repeats.
public struct HAPFrameSealer: Sendable {
    /// The longest plaintext of one frame.
    public static let maximumFrameLength = 1024

    let key: [UInt8]
    /// The next frame's counter.
    public private(set) var counter: UInt64 = 0

    /// A sealer with the session's sending key (`SessionKeys.accessoryToController` on the
    /// accessory).
    public init(key: [UInt8]) throws {
        guard key.count == 32 else {
            throw CryptoError(code: .invalidInput, call: "HAPFrameSealer", detail: "expected a 32-byte session key, got \(key.count) bytes")
        }
        self.key = key
    }

    /// The frames of `message`, concatenated.
    public mutating func seal(_ message: [UInt8]) throws -> [UInt8] {
        var frames: [UInt8] = []
        var rest = message[...]
        while !rest.isEmpty {
            let chunk = Array(rest.prefix(Self.maximumFrameLength))
            rest = rest.dropFirst(chunk.count)
            let length: [UInt8] = [UInt8(chunk.count & 0xFF), UInt8(chunk.count >> 8)]
            frames += length
            frames += try ChaChaPoly.seal(chunk, key: key, nonce: .session(counter: counter), authenticating: length)
            counter += 1
        }
        return frames
    }
}

/// The receiving side of HAP's encrypted session: takes the bytes as they arrive and returns the
/// plaintext of every complete frame. A frame that does not open (altered, replayed, out of
/// order, or under another key) or that says it is longer than 1024 bytes is an error after
/// which the connection must be closed.
public struct HAPFrameOpener: Sendable {
    let key: [UInt8]
    /// The next frame's counter.
    public private(set) var counter: UInt64 = 0
    private var buffer: [UInt8] = []

    /// An opener with the session's receiving key (`SessionKeys.controllerToAccessory` on the
    /// accessory).
    public init(key: [UInt8]) throws {
        guard key.count == 32 else {
            throw CryptoError(code: .invalidInput, call: "HAPFrameOpener", detail: "expected a 32-byte session key, got \(key.count) bytes")
        }
        self.key = key
    }

    /// Bytes waiting for the rest of their frame.
    public var pendingByteCount: Int { buffer.count }

    /// Appends `bytes` and returns the plaintext of the frames they complete (empty while a frame
    /// is incomplete).
    public mutating func open(_ bytes: [UInt8]) throws(HAPFrameError) -> [UInt8] {
        buffer += bytes
        var plaintext: [UInt8] = []
        while buffer.count >= 2 {
            let length = Int(buffer[0]) | Int(buffer[1]) << 8
            guard length <= HAPFrameSealer.maximumFrameLength else {
                throw HAPFrameError(code: .oversizedFrame, counter: counter,
                                    detail: "a frame of \(length) bytes, more than HAP's 1024")
            }
            guard buffer.count >= 2 + length + 16 else { break }
            let aad = Array(buffer[0..<2])
            let sealed = Array(buffer[2..<(2 + length + 16)])
            do {
                plaintext += try ChaChaPoly.open(sealed, key: key, nonce: .session(counter: counter), authenticating: aad)
            } catch {
                throw HAPFrameError(code: .authenticationFailed, counter: counter,
                                    detail: "the frame does not open: altered, replayed, out of order or under another key")
            }
            buffer.removeFirst(2 + length + 16)
            counter += 1
        }
        return plaintext
    }
}

/// A session frame refused: the connection must be closed.
public struct HAPFrameError: Error, Equatable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// Its length is over 1024 bytes.
        case oversizedFrame
        /// Its tag does not match under the session key and the expected counter.
        case authenticationFailed
    }

    public var code: Code
    /// The counter the frame was expected to have.
    public var counter: UInt64
    public var detail: String

    public var description: String { "HAP session frame \(counter): \(detail); closing the connection" }
}
