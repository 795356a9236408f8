import CMosquitto
import SwitchboardSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every libmosquitto call Switchboard makes, in one place, each turning a `MOSQ_ERR_*` code into
/// an ``MQTTError`` that says what to do. Only ``MQTTConnection`` calls these, on its queue.
enum Libmosquitto {
    /// `mosquitto_lib_init`, once per process.
    static let initialized: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    /// `mosquitto_new`: the handle, with `context` as the callbacks' user pointer.
    static func new(clientID: String?, cleanSession: Bool, context: UnsafeMutableRawPointer) throws -> OpaquePointer {
        _ = initialized
        guard let handle = mosquitto_new(clientID, cleanSession, context) else {
            let error = Errno.current
            throw MQTTError(.configuration, call: "mosquitto_new", errno: error,
                            detail: "could not create a client (\(error.message)); a client id is needed when cleanSession is false")
        }
        // Its socket pair (the loop's wake-up) is opened without close-on-exec and is not
        // reachable through the API.
        Descriptors.closeEveryOneOnExec()
        return handle
    }

    /// `mosquitto_destroy`.
    static func destroy(_ handle: OpaquePointer) { mosquitto_destroy(handle) }

    /// `mosquitto_lib_version`: "2.0.21".
    static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// `mosquitto_int_option(MOSQ_OPT_PROTOCOL_VERSION)`.
    static func setProtocolVersion(_ handle: OpaquePointer, v5: Bool) throws {
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311), "mosquitto_int_option")
    }

    /// The MQTT 5 CONNECT properties of this and every later connect and reconnect: a session
    /// that outlives the connection (`sessionExpiry` seconds, `UInt32.max` for never, as MQTT
    /// 3.1.1 keeps a session without a clean start) and the largest packet the broker may send.
    ///
    /// libmosquitto 2.0 keeps the properties given to `mosquitto_connect_bind_v5` for every later
    /// (re)connect, but that call connects synchronously and has no asynchronous form. Given an
    /// invalid port it keeps them and returns `MOSQ_ERR_INVAL` before any connect (it checks the
    /// properties, keeps them, then the host and port), and the asynchronous connect that follows
    /// sends them. The broker tests check that the session and the packet limit hold with the
    /// libmosquitto of Debian 12 (2.0.11) and Debian 13 (2.0.21).
    static func setConnectProperties(_ handle: OpaquePointer, sessionExpiry: UInt32, maximumPacketSize: UInt32?) throws {
        var properties: OpaquePointer?
        defer { mosquitto_property_free_all(&properties) }
        try check(mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), sessionExpiry), "mosquitto_property_add_int32")
        if let maximumPacketSize {
            try check(mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), maximumPacketSize), "mosquitto_property_add_int32")
        }
        let kept = mosquitto_connect_bind_v5(handle, "", -1, 60, nil, properties)
        guard kept == MOSQ_ERR_INVAL.rawValue else {
            throw MQTTError(.configuration, call: "mosquitto_connect_bind_v5", mosquittoCode: kept,
                            detail: "this libmosquitto (\(version)) did not take the MQTT 5 connect properties as 2.0 does; use \"protocol\": \"3.1.1\" in devices.json")
        }
    }

    /// `mosquitto_int_option(MOSQ_OPT_TCP_NODELAY)`: small packets go out at once instead of
    /// waiting on Nagle's algorithm for the broker's delayed ACK (up to 40 ms per command).
    static func disableNagle(_ handle: OpaquePointer) throws {
        try check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option")
    }

    /// `mosquitto_username_pw_set`.
    static func setCredentials(_ handle: OpaquePointer, username: String, password: String?) throws {
        try check(mosquitto_username_pw_set(handle, username, password), "mosquitto_username_pw_set")
    }

    /// `mosquitto_tls_set`.
    static func setTLS(_ handle: OpaquePointer, caFile: String, certificateFile: String?, keyFile: String?) throws {
        try check(mosquitto_tls_set(handle, caFile, nil, certificateFile, keyFile, nil), "mosquitto_tls_set",
                  hint: "check that the CA, certificate and key files exist and are readable by the service user")
    }

    /// `mosquitto_will_set`.
    static func setWill(_ handle: OpaquePointer, topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws {
        try payload.withUnsafeBytes { bytes in
            try check(mosquitto_will_set(handle, topic, Int32(bytes.count), bytes.baseAddress, qos, retain), "mosquitto_will_set")
        }
    }

    /// `mosquitto_connect_callback_set`, `mosquitto_disconnect_callback_set`, `mosquitto_message_callback_set`,
    /// `mosquitto_publish_v5_callback_set` (the broker's reason code for each QoS 1 publish).
    static func setCallbacks(
        _ handle: OpaquePointer,
        connect: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void,
        disconnect: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void,
        message: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void,
        publish: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, OpaquePointer?) -> Void
    ) {
        mosquitto_connect_callback_set(handle, connect)
        mosquitto_disconnect_callback_set(handle, disconnect)
        mosquitto_message_callback_set(handle, message)
        mosquitto_publish_v5_callback_set(handle, publish)
    }

    /// `mosquitto_connect_async`: starts connecting without waiting for the broker.
    static func connect(_ handle: OpaquePointer, host: String, port: Int, keepalive: Int) throws {
        try check(mosquitto_connect_async(handle, host, Int32(port), Int32(keepalive)), "mosquitto_connect_async",
                  hint: "is the broker at \(host):\(port) running and reachable?")
        closeSocketOnExec(handle)
    }

    /// `mosquitto_reconnect_async`.
    static func reconnect(_ handle: OpaquePointer) throws {
        try check(mosquitto_reconnect_async(handle), "mosquitto_reconnect_async", hint: "the broker is still unreachable")
        closeSocketOnExec(handle)
    }

    /// Marks the connection's socket close-on-exec: some libmosquitto versions open it without
    /// SOCK_CLOEXEC, and a child started meanwhile (a control extension) must not get the node's
    /// broker connection.
    private static func closeSocketOnExec(_ handle: OpaquePointer) {
        let descriptor = mosquitto_socket(handle)
        if descriptor >= 0 { Descriptors.closeOnExec(descriptor) }
        // A reconnect may open its socket pair again.
        Descriptors.closeEveryOneOnExec()
    }

    /// `mosquitto_disconnect`.
    static func disconnect(_ handle: OpaquePointer) { _ = mosquitto_disconnect(handle) }

    /// `mosquitto_socket`: the connection's descriptor, or -1.
    static func socket(_ handle: OpaquePointer) -> Int32 { mosquitto_socket(handle) }

    /// `mosquitto_want_write`.
    static func wantsWrite(_ handle: OpaquePointer) -> Bool { mosquitto_want_write(handle) }

    /// `mosquitto_loop_read`, `mosquitto_loop_write`, `mosquitto_loop_misc`: a failure means the connection is lost.
    static func read(_ handle: OpaquePointer) throws { try check(mosquitto_loop_read(handle, 1), "mosquitto_loop_read") }
    static func write(_ handle: OpaquePointer) throws { try check(mosquitto_loop_write(handle, 1), "mosquitto_loop_write") }
    static func misc(_ handle: OpaquePointer) throws { try check(mosquitto_loop_misc(handle), "mosquitto_loop_misc") }

    /// `mosquitto_publish`: the message id the broker's acknowledgement will carry.
    @discardableResult
    static func publish(_ handle: OpaquePointer, topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws -> Int32 {
        var mid: Int32 = 0
        try payload.withUnsafeBytes { bytes in
            try check(mosquitto_publish(handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, qos, retain), "mosquitto_publish")
        }
        return mid
    }

    /// `mosquitto_subscribe`.
    static func subscribe(_ handle: OpaquePointer, filter: String, qos: Int32) throws {
        try check(mosquitto_subscribe(handle, nil, filter, qos), "mosquitto_subscribe")
    }

    /// `mosquitto_unsubscribe`.
    static func unsubscribe(_ handle: OpaquePointer, filter: String) throws {
        try check(mosquitto_unsubscribe(handle, nil, filter), "mosquitto_unsubscribe")
    }

    /// `mosquitto_reason_string`: an MQTT 5 reason code in words ("Not authorized").
    static func reasonString(_ code: Int32) -> String { String(cString: mosquitto_reason_string(code)) }

    /// `mosquitto_connack_string`: why the broker refused a connection.
    static func connackReason(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }

    /// Turns a `MOSQ_ERR_*` into an error; `errno` is read only for `MOSQ_ERR_ERRNO`.
    /// What to check when a TLS connection fails before the broker accepted the node: the same
    /// whichever way libmosquitto reports it (a TLS error from the handshake, or EPROTO from a
    /// read when the handshake went on in the loop, or the broker dropping a node without a
    /// client certificate it requires).
    static let tlsChecklist = "check that mqtt.tls.caFile in devices.json is the CA that signed the broker's certificate, "
        + "that the certificate names mqtt.host, that mqtt.port is the broker's TLS listener (8883), and, where the broker requires client "
        + "certificates (require_certificate), that mqtt.tls.certificateFile and keyFile are a certificate and key that CA signed; "
        + "`openssl s_client -connect <host>:<port> -CAfile <caFile>` shows the reason"

    static func check(_ result: Int32, _ call: String, hint: String? = nil) throws {
        guard result != MOSQ_ERR_SUCCESS.rawValue else { return }
        let error = Errno.current
        let code: MQTTError.Code
        switch result {
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue: code = .notConnected
        case MOSQ_ERR_CONN_REFUSED.rawValue, MOSQ_ERR_ERRNO.rawValue, MOSQ_ERR_EAI.rawValue: code = .connection
        case MOSQ_ERR_INVAL.rawValue, MOSQ_ERR_PAYLOAD_SIZE.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue: code = .invalidMessage
        default: code = .failed
        }
        var detail = result == MOSQ_ERR_ERRNO.rawValue ? error.message : String(cString: mosquitto_strerror(result))
        if result == MOSQ_ERR_TLS.rawValue {
            // The broker answered, so the generic hint ("is it running?") would mislead.
            detail += "; the TLS handshake with the broker failed: " + tlsChecklist
        } else if let hint {
            detail += "; \(hint)"
        }
        throw MQTTError(code, call: call, mosquittoCode: result, errno: result == MOSQ_ERR_ERRNO.rawValue ? error : nil, detail: detail)
    }
}
