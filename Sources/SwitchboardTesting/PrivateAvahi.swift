import CTestProcess
import Foundation

/// A private avahi-daemon on a private system D-Bus, for discovery tests: the daemon runs in a
/// network namespace of its own whose only interface is loopback (multicast on), so nothing it
/// announces leaves the namespace, and in a mount namespace whose /run is its own (the machine's
/// avahi-daemon, if any, keeps its pid file and socket). Avahi's clients (the advertiser under test,
/// `avahi-browse`, `avahi-publish`) reach it over the private bus.
///
/// Avahi's client library finds the system bus through `DBUS_SYSTEM_BUS_ADDRESS` only, so the
/// test process's own variable points at ``busAddress``, set once per process (``bus``) before
/// any Avahi client is made: the bus is started and stopped at that one path, by one test at a
/// time (the suites using it are serialized). Needs root (namespaces), dbus-daemon, avahi-daemon,
/// avahi-utils and iproute2: ``unavailableReason`` says what is missing.
public final class PrivateAvahi: @unchecked Sendable {
    // Invariant: used from one test at a time.
    public let directory: String
    private var bus: ChildProcess?
    private var daemon: ChildProcess?
    private var daemonStarts = 0

    /// The private bus's folder and address, the same for the whole process.
    public static let busDirectory = "/tmp/switchboard-avahi-bus-\(getpid())"
    public static var busAddress: String { "unix:path=\(busDirectory)/bus" }

    /// Makes the private bus's folder. The process's `DBUS_SYSTEM_BUS_ADDRESS` already points at
    /// ``busAddress``: CTestProcess sets it before main, as setting it while other tests' threads
    /// read the environment could crash the test process. Returns the address.
    @discardableResult
    public static func pointSystemBusHere() -> String { pointed }
    private static let pointed: String = {
        precondition(switchboard_test_process_ready() == 1, "CTestProcess did not set up the test process")
        try? FileManager.default.createDirectory(atPath: busDirectory, withIntermediateDirectories: true)
        return busAddress
    }()

    static let tools = ["dbus-daemon": ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"],
                        "avahi-daemon": ["/usr/sbin/avahi-daemon", "/sbin/avahi-daemon"],
                        "avahi-browse": ["/usr/bin/avahi-browse"], "avahi-publish": ["/usr/bin/avahi-publish"],
                        "unshare": ["/usr/bin/unshare", "/bin/unshare"], "nsenter": ["/usr/bin/nsenter", "/bin/nsenter"], "ip": ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]]

    static func tool(_ name: String) -> String? {
        tools[name]?.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why a private avahi-daemon cannot run here, or nil when it can.
    public static var unavailableReason: String? {
        if geteuid() != 0 { return "not root: a private avahi-daemon needs network and mount namespaces" }
        let missing = tools.keys.sorted().filter { tool($0) == nil }
        if !missing.isEmpty { return "missing \(missing.joined(separator: ", ")): apt install avahi-daemon avahi-utils dbus iproute2" }
        return namespacesRefused
    }

    /// Why this kernel (or container) refuses the namespaces avahi-daemon would run in, or nil.
    private static let namespacesRefused: String? = {
        let result = ChildProcess.runBlocking(tool("unshare")!, ["--net", "--mount", "--propagation", "unchanged", "/bin/true"])
        return result.status == 0 ? nil : "no network and mount namespaces here (unshare --net --mount: \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))"
    }()

    /// Starts the private bus (at ``busAddress``), and avahi-daemon on it unless `daemon` is false.
    public init(daemon startDaemon: Bool = true) async throws {
        Self.pointSystemBusHere()
        directory = NSTemporaryDirectory() + "switchboard-avahi-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try startBus()
        if startDaemon { try await self.startDaemon() }
    }

    deinit {
        _ = daemon?.stop(signal: SIGKILL)
        _ = bus?.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(atPath: Self.busDirectory + "/bus")
        rmdir(Self.busDirectory) // made again by the next harness
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A configuration file of deploy/homekit (shared with deploy/homeassistant/test.sh), with
    /// `placeholder` filled in.
    private static func template(_ name: String, _ placeholder: String, _ value: String) throws -> String {
        try String(contentsOfFile: RepositoryFiles.path("deploy/homekit/" + name), encoding: .utf8)
            .replacingOccurrences(of: placeholder, with: value)
    }

    private func startBus() throws {
        let socket = Self.busDirectory + "/bus"
        try FileManager.default.createDirectory(atPath: Self.busDirectory, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: socket)
        let configuration = try Self.template("private-bus.conf.in", "@SOCKET@", socket)
        try configuration.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        bus = try ChildProcess(Self.tool("dbus-daemon")!, ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"],
                               logPath: directory + "/dbus.log")
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard ContinuousClock.now < deadline, bus?.isRunning == true else { throw HarnessError("dbus-daemon did not listen at \(socket): \(log("dbus.log"))") }
            usleep(10_000)
        }
    }

    /// Starts avahi-daemon in its namespaces and waits until it has joined loopback's multicast
    /// group and published its host name.
    public func startDaemon() async throws {
        daemonStarts += 1
        let logName = "avahi-\(daemonStarts).log"
        let configuration = try Self.template("private-avahi-daemon.conf.in", "@INTERFACE@", "lo")
        try configuration.write(toFile: directory + "/avahi-daemon.conf", atomically: true, encoding: .utf8)
        let ip = Self.tool("ip")!
        // Nothing mounted here may reach the machine's /run: the namespace's mounts are made
        // private (in a chroot, whose / is no mount point, that fails, and the chroot's own
        // private namespace — deploy/debian13/run.sh's — keeps them in), and a /run still shared
        // is refused.
        let script = "mount --make-rprivate / 2>/dev/null; "
            + "[ \"$(findmnt -no PROPAGATION --target /run 2>/dev/null)\" != shared ] || { echo 'refusing: /run is a shared mount' >&2; exit 1; }; "
            + "\(ip) link set lo up && \(ip) link set lo multicast on && mount -t tmpfs switchboard-avahi /run && mkdir -p /run/avahi-daemon && "
            + "exec \(Self.tool("avahi-daemon")!) -f \(directory)/avahi-daemon.conf --no-drop-root --no-chroot --no-rlimits --no-proc-title"
        daemon = try ChildProcess(Self.tool("unshare")!, ["--net", "--mount", "--propagation", "unchanged", "/bin/sh", "-c", script],
                                  logPath: directory + "/" + logName, environment: ["DBUS_SYSTEM_BUS_ADDRESS": Self.busAddress])
        let started = await eventually(within: .seconds(20), every: .milliseconds(50)) {
            self.log(logName).contains("Server startup complete") || self.daemon?.isRunning != true
        }
        guard started, daemon?.isRunning == true else { throw HarnessError("avahi-daemon did not start: \(log(logName))") }
    }

    /// Runs `path` with `arguments` in avahi-daemon's network namespace (`nsenter --net`), where
    /// an mDNS client of its own (python-zeroconf, say) queries over loopback beside the daemon.
    public func runInDaemonsNetwork(_ path: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        guard let pid = daemon?.pid else { throw HarnessError("avahi-daemon is not running") }
        guard let nsenter = Self.tool("nsenter") else { throw HarnessError("no nsenter: apt install util-linux") }
        return await ChildProcess.run(nsenter, ["--net=/proc/\(pid)/ns/net", "--", path] + arguments)
    }

    /// Starts `path` with `arguments` in avahi-daemon's network namespace, its output in the
    /// harness's file `logName`, until the returned process is stopped.
    public func startInDaemonsNetwork(_ path: String, _ arguments: [String], logName: String) throws -> ChildProcess {
        guard let pid = daemon?.pid else { throw HarnessError("avahi-daemon is not running") }
        guard let nsenter = Self.tool("nsenter") else { throw HarnessError("no nsenter: apt install util-linux") }
        return try ChildProcess(nsenter, ["--net=/proc/\(pid)/ns/net", "--", path] + arguments, logPath: directory + "/" + logName)
    }

    /// Stops avahi-daemon (SIGTERM: it withdraws what it announced and leaves the bus).
    public func stopDaemon() {
        _ = daemon?.stop(signal: SIGTERM, grace: .seconds(5))
        daemon = nil
    }

    /// A service as `avahi-browse -rpt` resolved it.
    public struct BrowsedService: Sendable, Equatable {
        public var name: String
        public var type: String
        public var host: String
        public var address: String
        public var port: Int
        public var txt: [String: String]
    }

    /// The services of `type` that avahi-daemon knows now (its cache and this host's own),
    /// resolved: `avahi-browse --resolve --parsable --terminate`.
    public func browse(_ type: String) async -> [BrowsedService] {
        // Bounded: a resolution that never ends must not hold the test past its time limit.
        let result = await ChildProcess.run("/usr/bin/timeout", ["10", Self.tool("avahi-browse")!, "--resolve", "--parsable", "--terminate", "--no-db-lookup", type],
                                            environment: ["DBUS_SYSTEM_BUS_ADDRESS": Self.busAddress])
        return result.stdout.split(separator: "\n").compactMap { Self.parse(String($0)) }
    }

    /// Publishes a service of another program on the private daemon (`avahi-publish -s`) until
    /// the returned process is stopped.
    public func publish(name: String, type: String, port: Int, txt: [String] = []) throws -> ChildProcess {
        try ChildProcess(Self.tool("avahi-publish")!, ["-s", name, type, String(port)] + txt,
                         logPath: directory + "/publish.log", environment: ["DBUS_SYSTEM_BUS_ADDRESS": Self.busAddress])
    }

    /// One `=` line of `avahi-browse -p -r`: `=;lo;IPv4;Name;_hap._tcp;local;host.local;127.0.0.1;51826;"a=b" "c=d"`.
    static func parse(_ line: String) -> BrowsedService? {
        let fields = line.split(separator: ";", maxSplits: 9, omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 10, fields[0] == "=", let port = Int(fields[8]) else { return nil }
        var txt: [String: String] = [:]
        // Each TXT string is quoted; a quote or backslash inside is escaped as \DDD by -p.
        var rest = Substring(fields[9])
        while let open = rest.firstIndex(of: "\"") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "\"") else { break }
            let entry = unescape(String(rest[afterOpen..<close]))
            if let equals = entry.firstIndex(of: "=") {
                txt[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
            } else {
                txt[entry] = ""
            }
            rest = rest[rest.index(after: close)...]
        }
        return BrowsedService(name: unescape(fields[3]), type: fields[4], host: fields[6], address: fields[7], port: port, txt: txt)
    }

    /// avahi-browse's `\DDD` (decimal) escapes undone.
    static func unescape(_ text: String) -> String {
        let utf8 = Array(text.utf8)
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[(index + 1)...(index + 3)].allSatisfy(isDigit),
               let value = UInt8(String(decoding: utf8[(index + 1)...(index + 3)], as: UTF8.self)) {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A log file of the harness's folder (dbus.log, avahi-N.log, publish.log).
    public func log(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }
}
