import SwitchboardSupport

/// TCP ports for the servers the tests start (brokers, HomeKit bridges).
public enum TestPort {
    /// Every port handed out in this process: a test that stops its server for a while (a broker
    /// killed and restarted on the same port) leaves its port free on the machine but still its
    /// own, and a parallel test must not start a server there.
    private static let handedOut = Locked(Set<UInt16>())

    /// A port no socket on the machine holds now and no other test of this process was given, from
    /// 20000–32000: below Linux's ephemeral range (32768–60999), where the kernel picks the local
    /// port of every outgoing connection. A port from that range, freed when a test stops its
    /// server, can be taken by any client on the machine before the server starts again, whose
    /// restart then fails with EADDRINUSE (a HomeKit bridge restarted under the sanitizers' load
    /// did).
    public static func free() throws -> Int {
        for _ in 0..<500 {
            let port = UInt16.random(in: 20_000...32_000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            // On every address: a HomeKit bridge listens there, a broker on loopback.
            if let listener = try? SystemCall.tcpListener(port: port, loopbackOnly: false) {
                SystemCall.close(listener.descriptor)
                return Int(port)
            }
        }
        throw HarnessError("no free TCP port between 20000 and 32000")
    }
}
