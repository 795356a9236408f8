import SwitchboardSupport

/// Why an MQTT operation failed, with what to do about it in ``description``.
public struct MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The client could not be created or configured (bad TLS files, bad options).
        case configuration
        /// The broker could not be reached or refused the connection.
        case connection
        /// Not connected: the operation waits for the next connection.
        case notConnected
        /// A topic or payload libmosquitto refused.
        case invalidMessage
        /// Any other libmosquitto failure.
        case failed
    }

    public var code: Code
    /// The libmosquitto call that failed.
    public var call: String
    /// `MOSQ_ERR_*`, if the call returned one.
    public var mosquittoCode: Int32?
    /// `errno`, for `MOSQ_ERR_ERRNO`.
    public var errno: Errno?
    public var detail: String

    public init(_ code: Code, call: String, mosquittoCode: Int32? = nil, errno: Errno? = nil, detail: String) {
        self.code = code
        self.call = call
        self.mosquittoCode = mosquittoCode
        self.errno = errno
        self.detail = detail
    }

    public var description: String { "MQTT \(call): \(detail)" }
}
