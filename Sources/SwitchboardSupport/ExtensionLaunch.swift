#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The first exchange on a connection to `switchboard-extension.socket`: switchboardd sends one
/// ``Request`` line naming the extension to run, `switchboard-extension-launcher` answers one
/// ``Answer`` line, and from then on the connection is the extension's standard input and output
/// (the line protocol), exactly as a spawned extension's pipes are.
public enum ExtensionLaunch {
    /// What to run: the extension's id (for the journal), its executable and its arguments.
    public struct Request: Codable, Sendable, Equatable {
        public var id: String
        public var executable: String
        public var arguments: [String]

        public init(id: String, executable: String, arguments: [String]) {
            self.id = id
            self.executable = executable
            self.arguments = arguments
        }
    }

    /// Whether it runs: the unit and user it runs as, or why it was refused.
    public struct Answer: Codable, Sendable, Equatable {
        public var launched: Bool
        /// The systemd unit it runs in (`switchboard-extension@3-1234-998.service`); nil outside systemd.
        public var unit: String?
        /// The user id it runs as (a dynamic user of its own under systemd).
        public var uid: UInt32?
        /// Why it does not run (and what to do about it).
        public var error: String?

        public init(launched: Bool, unit: String? = nil, uid: UInt32? = nil, error: String? = nil) {
            self.launched = launched
            self.unit = unit
            self.uid = uid
            self.error = error
        }
    }

    /// The longest first line either side accepts.
    public static let maximumLineLength = 65536

    /// One value as a JSON line (with its newline).
    public static func encodeLine(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8)) + [UInt8(ascii: "\n")]
    }

    /// Decodes one line read by ``readLine(from:timeout:)``.
    public static func decode<T: Decodable>(_ type: T.Type, _ line: [UInt8]) -> T? {
        try? CheckedJSON.decode(type, from: Data(line))
    }

    /// Why a first line could not be read.
    public enum ReadFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The other end closed before a whole line came.
        case closed
        /// No whole line within the timeout.
        case timedOut
        /// A line longer than ``maximumLineLength``.
        case tooLong
        /// `read` or `poll` failed.
        case failed(Errno)

        public var description: String {
            switch self {
            case .closed: "closed"
            case .timedOut: "timedOut"
            case .tooLong: "tooLong"
            case .failed(let error): "failed: \(error)"
            }
        }
    }

    /// Reads one line from a blocking descriptor, a byte at a time so that nothing after the
    /// newline is taken from the bytes that belong to the extension.
    /// - Parameter timeout: milliseconds to wait in all (nil: for ever).
    public static func readLine(from descriptor: Int32, timeout: Int32? = nil) -> Result<[UInt8], ReadFailure> {
        var line: [UInt8] = []
        let deadline = timeout.map { ContinuousClock.now + .milliseconds($0) }
        var byte: [UInt8] = [0]
        while true {
            do {
                if let deadline {
                    var poller = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
                    guard try SystemCall.poll(&poller, timeout: SystemCall.milliseconds(until: deadline)) > 0 else { return .failure(.timedOut) }
                }
                guard try SystemCall.read(descriptor, into: &byte) > 0 else {
                    return .failure(.closed)
                }
            } catch {
                return .failure(.failed(error))
            }
            if byte[0] == UInt8(ascii: "\n") { return .success(line) }
            line.append(byte[0])
            if line.count > maximumLineLength { return .failure(.tooLong) }
        }
    }

}
