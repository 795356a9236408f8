import SwitchboardSupport

/// Advertises the accessory's `_hap._tcp` service on the LAN through the system's avahi-daemon
/// (Raspberry Pi OS runs it), so that iPhones find the bridge.
///
/// ```swift
/// let advertiser = AvahiAdvertiser(log: { print($0) })
/// advertiser.advertise(record)             // and again when c# or sf change
/// advertiser.withdraw()
/// ```
///
/// Nothing blocks its caller: Avahi's client runs on a thread of its own (Avahi's threaded poll),
/// and ``advertise(_:)`` and ``withdraw()`` only leave the wanted record there and wake it. A name
/// already taken on the LAN is replaced by the one Avahi suggests ("Name #2"). Without avahi-daemon
/// (or without the system's D-Bus) it logs once how to enable discovery and keeps trying; when
/// the daemon starts, or comes back after it went away, the service is advertised again.
public final class AvahiAdvertiser: @unchecked Sendable {
    /// Where the advertisement stands.
    public enum Status: Sendable, Equatable {
        /// Nothing to advertise.
        case idle
        /// avahi-daemon cannot be reached (the reason); trying again.
        case waitingForAvahi(String)
        /// Handed to avahi-daemon, which is probing the name on the LAN.
        case registering(name: String)
        /// Announced on the LAN under `name` (the record's name, or Avahi's alternative to it).
        case advertised(name: String)
    }

    // Invariant: everything below `retryMilliseconds` is read and written only by the poll's
    // thread (whose callbacks hold the threaded poll's lock) or holding that lock
    // (`LibAvahi.lock`); `statusValue` has its own lock, for readers on any thread.
    private let poll: OpaquePointer
    private var timeout: OpaquePointer?
    private let log: @Sendable (String) -> Void
    private let info: @Sendable (String) -> Void
    private let retryMilliseconds: UInt32

    private var client: OpaquePointer?
    private var group: OpaquePointer?
    /// What should be advertised.
    private var wanted: HAPServiceRecord?
    /// What the entry group holds (committed), under `name`.
    private var registered: HAPServiceRecord?
    /// The instance name in use: the record's, or Avahi's alternative after a collision, and the
    /// record's name it was made for.
    private var name: String?
    private var nameRequested: String?
    /// The client failed (D-Bus went away) or the group is stale: both are freed and made again.
    private var clientFailed = false
    private var groupStale = false
    /// Whether the advice for a missing avahi-daemon was given for the current outage.
    private var adviceGiven = false
    private var stopped = false
    private let statusValue = Locked(Status.idle)

    /// Starts Avahi's poll thread. `log` gets one line per event worth a user's attention (the
    /// advice when avahi-daemon is missing, the name advertised, a collision); it runs on the
    /// poll's thread and must not call back into the advertiser. Without the daemon it tries
    /// again every `retryInterval`. `info`, when given, gets the line that says the name is
    /// advertised, which is no problem (`log` gets it otherwise).
    public init(retryInterval: Duration = .seconds(5), log: @escaping @Sendable (String) -> Void, info: (@Sendable (String) -> Void)? = nil) throws(AvahiError) {
        guard let poll = LibAvahi.newThreadedPoll() else { throw AvahiError(call: "avahi_threaded_poll_new", code: -1) }
        self.poll = poll
        self.log = log
        self.info = info ?? log
        let (seconds, attoseconds) = retryInterval.components
        retryMilliseconds = UInt32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        timeout = LibAvahi.newTimeout(poll, context)
        let started = LibAvahi.start(poll)
        guard started == 0, timeout != nil else {
            if let timeout { LibAvahi.free(timeout: timeout, poll: poll) }
            LibAvahi.free(poll: poll)
            throw AvahiError(call: "avahi_threaded_poll_start", code: started)
        }
    }

    deinit { stop() }

    /// Where the advertisement stands now.
    public var status: Status { statusValue.withLock { $0 } }

    /// Advertises `record`, or updates what is advertised: a new TXT record (c#, sf…) is
    /// announced again at once; a new name or port replaces the service.
    public func advertise(_ record: HAPServiceRecord) {
        onPollThread { $0.wanted = record }
    }

    /// Withdraws the service from the LAN (a goodbye is sent); ``advertise(_:)`` brings it back.
    public func withdraw() {
        onPollThread { $0.wanted = nil }
    }

    /// Withdraws the service and stops Avahi's thread; the advertiser is done. Called by `deinit`.
    public func stop() {
        LibAvahi.lock(poll)
        let first = !stopped
        stopped = true
        LibAvahi.unlock(poll)
        guard first else { return }
        LibAvahi.stop(poll)
        // The poll's thread has ended: nothing else touches the handles now.
        if let group { LibAvahi.free(group: group) }
        if let client { LibAvahi.free(client: client) }
        if let timeout { LibAvahi.free(timeout: timeout, poll: poll) }
        group = nil
        client = nil
        timeout = nil
        LibAvahi.free(poll: poll)
        statusValue.withLock { $0 = .idle }
    }

    // MARK: on the poll's thread

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The advertiser that Avahi's callbacks carry as their user data.
    static func from(_ context: UnsafeMutableRawPointer?) -> AvahiAdvertiser {
        Unmanaged<AvahiAdvertiser>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Changes the wanted state holding the poll's lock, and wakes the poll's thread to act on it.
    private func onPollThread(_ change: (AvahiAdvertiser) -> Void) {
        LibAvahi.lock(poll)
        defer { LibAvahi.unlock(poll) }
        guard !stopped else { return }
        change(self)
        wake(after: 0)
    }

    private func wake(after milliseconds: UInt32) {
        if let timeout { LibAvahi.arm(poll, timeout, milliseconds: milliseconds) }
    }

    private func setStatus(_ status: Status) { statusValue.withLock { $0 = status } }

    /// The timeout's callback (on the poll's thread).
    func timeoutFired() { reconcile() }

    /// Brings Avahi's state to the wanted one: a client, a group holding the wanted record.
    /// Runs on the poll's thread (its timeout), never inside one of Avahi's callbacks.
    private func reconcile() {
        if clientFailed || groupStale, let group {
            LibAvahi.free(group: group)
            self.group = nil
            registered = nil
        }
        groupStale = false
        if clientFailed, let client {
            LibAvahi.free(client: client)
            self.client = nil
        }
        clientFailed = false

        guard let wanted else {
            if let group, !LibAvahi.isEmpty(group) { LibAvahi.reset(group) }
            registered = nil
            name = nil
            nameRequested = nil
            setStatus(.idle)
            return
        }
        if client == nil {
            switch LibAvahi.newClient(poll, context) {
            case .success(let made): client = made
            case .failure(let error):
                unavailable(reason: LibAvahi.errorText(error.code), record: wanted)
                wake(after: retryMilliseconds)
                return
            }
        }
        guard let client else { return }
        switch LibAvahi.state(client) {
        case .running: break
        case .connecting:
            unavailable(reason: "avahi-daemon is not running", record: wanted)
            return
        default:
            return // registering or collision: the client's callback wakes us when it runs
        }
        if group == nil {
            switch LibAvahi.newGroup(client, context) {
            case .success(let made): group = made
            case .failure(let error):
                log("HomeKit discovery: \(error); trying again in \(retryMilliseconds / 1000) s")
                wake(after: retryMilliseconds)
                return
            }
        }
        guard let group else { return }
        if let registered, !LibAvahi.isEmpty(group), let name {
            if registered == wanted { return }
            if registered.name == wanted.name, registered.port == wanted.port {
                let code = LibAvahi.updateTXT(group, name: name, type: HAPServiceRecord.serviceType, txt: wanted.txt)
                if code == 0 {
                    self.registered = wanted
                    return
                }
                log("HomeKit discovery: avahi_entry_group_update_service_txt_strlst: \(LibAvahi.errorText(code)); advertising \"\(name)\" anew")
            }
        }
        // The name stays Avahi's alternative after a collision, until the record's name changes.
        if name == nil || nameRequested != wanted.name {
            name = wanted.instanceName
            nameRequested = wanted.name
        }
        register(wanted, in: group)
    }

    /// Replaces the group's entries with `record` under `name` (or Avahi's alternatives to it
    /// while the name is taken by another service of this host) and commits them.
    private func register(_ record: HAPServiceRecord, in group: OpaquePointer) {
        if !LibAvahi.isEmpty(group) { LibAvahi.reset(group) }
        registered = nil
        var candidate = name ?? record.instanceName
        var code = LibAvahi.addService(group, name: candidate, type: HAPServiceRecord.serviceType, port: record.port, txt: record.txt)
        var tries = 0
        while LibAvahi.isCollision(code), tries < 20 {
            let alternative = LibAvahi.alternativeServiceName(candidate)
            log("HomeKit discovery: the name \"\(candidate)\" is taken on this host; advertising as \"\(alternative)\"")
            candidate = alternative
            code = LibAvahi.addService(group, name: candidate, type: HAPServiceRecord.serviceType, port: record.port, txt: record.txt)
            tries += 1
        }
        if code == 0 { code = LibAvahi.commit(group) }
        guard code == 0 else {
            log("HomeKit discovery: advertising \"\(candidate)\" failed: \(LibAvahi.errorText(code)); trying again in \(retryMilliseconds / 1000) s")
            LibAvahi.reset(group)
            wake(after: retryMilliseconds)
            return
        }
        name = candidate
        registered = record
        setStatus(.registering(name: candidate))
    }

    /// Says once per outage that discovery is off and how to turn it on.
    private func unavailable(reason: String, record: HAPServiceRecord) {
        setStatus(.waitingForAvahi(reason))
        guard !adviceGiven else { return }
        adviceGiven = true
        log("HomeKit discovery is off (\(reason)): iPhones will not find \"\(record.name)\" on the network, though the bridge serves on port \(record.port); to enable it: sudo apt install avahi-daemon && sudo systemctl enable --now avahi-daemon")
    }

    /// The client's callback (on the poll's thread, possibly inside `avahi_client_new`).
    func clientChanged(_ client: OpaquePointer?, _ state: LibAvahi.ClientState) {
        switch state {
        case .running:
            wake(after: 0)
        case .collision, .registering:
            // The host's name changed: the daemon drops our entries; they are added again when
            // it runs.
            if let group { LibAvahi.reset(group) }
            registered = nil
        case .connecting:
            // avahi-daemon is not there yet (or, for a client that reports its loss so, went
            // away): its entry groups are made again when it runs.
            groupStale = true
            registered = nil
            wake(after: 0)
        case .failure:
            clientFailed = true
            registered = nil
            // What avahi-daemon's going away looks like (its connection closed): the client is
            // made again, which waits for the daemon's return.
            let reason = client.map { LibAvahi.errorText(LibAvahi.lastError($0)) } ?? "unknown error"
            if let wanted { unavailable(reason: "lost avahi-daemon: \(reason)", record: wanted) }
            wake(after: retryMilliseconds)
        case .unknown:
            break
        }
    }

    /// The entry group's callback (on the poll's thread).
    func groupChanged(_ state: LibAvahi.GroupState) {
        switch state {
        case .established:
            guard let name else { return }
            if adviceGiven || status != .advertised(name: name) {
                info("HomeKit discovery: advertising \"\(name)\" (\(HAPServiceRecord.serviceType), port \(registered?.port ?? 0)) through avahi-daemon")
            }
            adviceGiven = false
            setStatus(.advertised(name: name))
        case .collision:
            // Another host on the LAN has the name: take the next one Avahi suggests.
            if let name {
                let alternative = LibAvahi.alternativeServiceName(name)
                log("HomeKit discovery: the name \"\(name)\" is taken on the network; advertising as \"\(alternative)\"")
                self.name = alternative
            }
            registered = nil
            wake(after: 0)
        case .failure:
            log("HomeKit discovery: avahi-daemon could not advertise \"\(name ?? "")\"; trying again in \(retryMilliseconds / 1000) s")
            groupStale = true
            registered = nil
            wake(after: retryMilliseconds)
        case .uncommitted, .registering, .unknown:
            break
        }
    }
}
