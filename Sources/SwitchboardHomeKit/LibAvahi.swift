import CAvahi

// Every Avahi call of Switchboard goes through this file: the rest of the code never sees a raw
// C call. The handles (the threaded poll, the client, the entry group, the timeout) have one
// owner, `AvahiAdvertiser`, which frees each once.

/// Avahi's client library, as the HomeKit advertiser uses it.
enum LibAvahi {
    // The trampolines: Avahi calls them on the poll's thread with the advertiser as `userdata`
    // (`Unmanaged.passUnretained`), which outlives the poll's thread (`AvahiAdvertiser.stop`).
    private static let clientTrampoline: @convention(c) (OpaquePointer?, AvahiClientState, UnsafeMutableRawPointer?) -> Void = { client, state, context in
        AvahiAdvertiser.from(context).clientChanged(client, LibAvahi.clientState(state))
    }
    private static let groupTrampoline: @convention(c) (OpaquePointer?, AvahiEntryGroupState, UnsafeMutableRawPointer?) -> Void = { _, state, context in
        AvahiAdvertiser.from(context).groupChanged(LibAvahi.groupState(state))
    }
    private static let timeoutTrampoline: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, context in
        AvahiAdvertiser.from(context).timeoutFired()
    }

    /// What the client's and the entry group's callbacks report, in Swift's terms.
    enum ClientState: Equatable { case connecting, registering, running, collision, failure, unknown }
    enum GroupState: Equatable { case uncommitted, registering, established, collision, failure, unknown }

    private static func clientState(_ state: AvahiClientState) -> ClientState {
        switch state {
        case AVAHI_CLIENT_CONNECTING: .connecting
        case AVAHI_CLIENT_S_REGISTERING: .registering
        case AVAHI_CLIENT_S_RUNNING: .running
        case AVAHI_CLIENT_S_COLLISION: .collision
        case AVAHI_CLIENT_FAILURE: .failure
        default: .unknown
        }
    }

    private static func groupState(_ state: AvahiEntryGroupState) -> GroupState {
        switch state {
        case AVAHI_ENTRY_GROUP_UNCOMMITED: .uncommitted
        case AVAHI_ENTRY_GROUP_REGISTERING: .registering
        case AVAHI_ENTRY_GROUP_ESTABLISHED: .established
        case AVAHI_ENTRY_GROUP_COLLISION: .collision
        case AVAHI_ENTRY_GROUP_FAILURE: .failure
        default: .unknown
        }
    }

    /// Avahi's text for an error code (`avahi_strerror`).
    static func errorText(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }

    /// Whether `code` says that a name is taken (`AVAHI_ERR_COLLISION`).
    static func isCollision(_ code: Int32) -> Bool { code == AVAHI_ERR_COLLISION }

    // MARK: the threaded poll

    /// A new poll with a thread of its own, not started (`avahi_threaded_poll_new`).
    static func newThreadedPoll() -> OpaquePointer? { avahi_threaded_poll_new() }
    /// Starts the poll's thread (`avahi_threaded_poll_start`); 0 on success.
    static func start(_ poll: OpaquePointer) -> Int32 { avahi_threaded_poll_start(poll) }
    /// Stops the poll's thread and waits for it (`avahi_threaded_poll_stop`); never on that thread.
    static func stop(_ poll: OpaquePointer) { _ = avahi_threaded_poll_stop(poll) }
    /// Frees a stopped poll (`avahi_threaded_poll_free`).
    static func free(poll: OpaquePointer) { avahi_threaded_poll_free(poll) }
    /// Takes the lock the poll's thread holds while it runs callbacks (`avahi_threaded_poll_lock`).
    static func lock(_ poll: OpaquePointer) { avahi_threaded_poll_lock(poll) }
    /// `avahi_threaded_poll_unlock`.
    static func unlock(_ poll: OpaquePointer) { avahi_threaded_poll_unlock(poll) }

    /// A timeout on the poll, not armed (`AvahiPoll.timeout_new`).
    static func newTimeout(_ poll: OpaquePointer, _ context: UnsafeMutableRawPointer) -> OpaquePointer? {
        let api = avahi_threaded_poll_get(poll)!
        return api.pointee.timeout_new(api, nil, timeoutTrampoline, context)
    }

    /// Arms `timeout` to fire `milliseconds` from now (`avahi_elapse_time`, `AvahiPoll.timeout_update`).
    static func arm(_ poll: OpaquePointer, _ timeout: OpaquePointer, milliseconds: UInt32) {
        let api = avahi_threaded_poll_get(poll)!
        var when = timeval()
        avahi_elapse_time(&when, milliseconds, 0)
        api.pointee.timeout_update(timeout, &when)
    }

    /// `AvahiPoll.timeout_free`.
    static func free(timeout: OpaquePointer, poll: OpaquePointer) {
        let api = avahi_threaded_poll_get(poll)!
        api.pointee.timeout_free(timeout)
    }

    // MARK: the client

    /// A client of avahi-daemon that waits for the daemon when it is not running and follows it
    /// when it goes and comes back (`avahi_client_new` with `AVAHI_CLIENT_NO_FAIL`). Fails when
    /// the system's D-Bus cannot be reached.
    static func newClient(_ poll: OpaquePointer, _ context: UnsafeMutableRawPointer) -> Result<OpaquePointer, AvahiError> {
        var error: Int32 = 0
        guard let client = avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, clientTrampoline, context, &error) else {
            return .failure(AvahiError(call: "avahi_client_new", code: error))
        }
        return .success(client)
    }

    /// `avahi_client_get_state`.
    static func state(_ client: OpaquePointer) -> ClientState { clientState(avahi_client_get_state(client)) }
    /// The client's last error (`avahi_client_errno`).
    static func lastError(_ client: OpaquePointer) -> Int32 { avahi_client_errno(client) }
    /// Frees the client and its entry groups (`avahi_client_free`): their services are withdrawn.
    static func free(client: OpaquePointer) { avahi_client_free(client) }

    // MARK: the entry group

    /// `avahi_entry_group_new`.
    static func newGroup(_ client: OpaquePointer, _ context: UnsafeMutableRawPointer) -> Result<OpaquePointer, AvahiError> {
        guard let group = avahi_entry_group_new(client, groupTrampoline, context) else {
            return .failure(AvahiError(call: "avahi_entry_group_new", code: avahi_client_errno(client)))
        }
        return .success(group)
    }

    /// `avahi_entry_group_free`.
    static func free(group: OpaquePointer) { _ = avahi_entry_group_free(group) }
    /// Whether the group holds no entries (`avahi_entry_group_is_empty`).
    static func isEmpty(_ group: OpaquePointer) -> Bool { avahi_entry_group_is_empty(group) != 0 }
    /// Withdraws the group's entries (`avahi_entry_group_reset`).
    static func reset(_ group: OpaquePointer) { _ = avahi_entry_group_reset(group) }

    /// Adds the service `name` of `type` on every interface and protocol, on this host, with
    /// the TXT record `txt` (`avahi_entry_group_add_service_strlst`); the error code or 0.
    static func addService(_ group: OpaquePointer, name: String, type: String, port: UInt16, txt: [(key: String, value: String)]) -> Int32 {
        withStringList(txt) { list in
            avahi_entry_group_add_service_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0),
                                                 name, type, nil, nil, port, list)
        }
    }

    /// Replaces the TXT record of the service `name` and announces it again
    /// (`avahi_entry_group_update_service_txt_strlst`); the error code or 0.
    static func updateTXT(_ group: OpaquePointer, name: String, type: String, txt: [(key: String, value: String)]) -> Int32 {
        withStringList(txt) { list in
            avahi_entry_group_update_service_txt_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0),
                                                        name, type, nil, list)
        }
    }

    /// Makes the group's entries public (`avahi_entry_group_commit`); the error code or 0.
    static func commit(_ group: OpaquePointer) -> Int32 { avahi_entry_group_commit(group) }

    /// The name Avahi suggests after `name` collided: "Name #2", then "Name #3"…
    /// (`avahi_alternative_service_name`, `avahi_free`).
    static func alternativeServiceName(_ name: String) -> String {
        guard let alternative = avahi_alternative_service_name(name) else { return name + " #2" }
        defer { avahi_free(alternative) }
        return String(cString: alternative)
    }

    /// Runs `body` with `pairs` as an Avahi string list of "key=value" entries, in order
    /// (`avahi_string_list_add_pair`, `avahi_string_list_reverse`, `avahi_string_list_free`).
    private static func withStringList<Result>(_ pairs: [(key: String, value: String)], _ body: (UnsafeMutablePointer<AvahiStringList>?) -> Result) -> Result {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        for pair in pairs { list = avahi_string_list_add_pair(list, pair.key, pair.value) }
        list = avahi_string_list_reverse(list)
        defer { avahi_string_list_free(list) }
        return body(list)
    }
}

/// A call to Avahi's client library that failed, with Avahi's error code and text.
public struct AvahiError: Error, Equatable, CustomStringConvertible {
    /// The function, e.g. `avahi_client_new`.
    public var call: String
    /// Avahi's error code (`AVAHI_ERR_*`, negative).
    public var code: Int32

    public var description: String { "\(call): \(LibAvahi.errorText(code))" }
}
