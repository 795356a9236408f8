import Foundation

extension HomeKitBenchmark {
    /// The side-by-side table, with the ratios to HAP-python and issue #31's goals (at most half
    /// of HAP-python's latency and CPU; the bridge adds at most 2 MiB to the idle RSS), then the
    /// JSON line.
    func report(_ o: Outcome) -> [String] {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        func perWrite(_ server: Server) -> (stat: Double, schedstat: Double) {
            (Double(server.cpuTicks) / ticksPerSecond * 1e6 / Double(max(writes, 1)), server.cpu.seconds * 1e6 / Double(max(writes, 1)))
        }
        func mib(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        let s = o.switchboardd, h = o.hapPython
        var lines = [
            "homekit: aiohomekit 4.0.1 → one Switch on 127.0.0.1; release switchboardd (simulated chip) beside HAP-python 5.0.0;",
            "  \(writes) writes of On, one in flight (after \(warmup) untimed), and \(events) + \(events) outside toggles, each server alone",
            "                                                           switchboardd    HAP-python    ratio   goal ≤ 0.5×",
        ]
        var json: [String] = []
        func row(_ title: String, _ key: String, _ a: Double, _ b: Double) {
            let ratio = a / max(b, 1e-9)
            let padded = title.padding(toLength: 56, withPad: " ", startingAt: 0)
            lines.append("  \(padded) \(number(a).leftPadded(12))  \(number(b).leftPadded(12))  \(String(format: "%6.2f", ratio))×  \(ratio <= 0.5 ? "met" : "not met")")
            json.append(#""\#(key)_switchboardd":\#(number(a)),"\#(key)_hap_python":\#(number(b)),"\#(key)_ratio":\#(String(format: "%.3f", ratio))"#)
        }
        func latencies(_ title: String, _ key: String, _ a: [Duration], _ b: [Duration]) {
            let pa = Percentiles(a), pb = Percentiles(b)
            row("\(title) p50 µs", key + "_p50_us", pa(50).seconds * 1e6, pb(50).seconds * 1e6)
            row("\(title) p99 µs", key + "_p99_us", pa(99).seconds * 1e6, pb(99).seconds * 1e6)
        }
        latencies("write → relay switched → response", "write", s.write, h.write)
        latencies("toggle → EVENT (CLI process; set_value)", "event", s.event, h.event)
        latencies("toggle → EVENT (socket line; immediate publish)", "event_fast", s.fastEvent, h.fastEvent)
        let cpuS = perWrite(s), cpuH = perWrite(h)
        row("server CPU per write µs (stat utime+stime)", "cpu_per_write_us", cpuS.stat, cpuH.stat)
        row("server CPU per write µs (threads' schedstat)", "cpu_schedstat_per_write_us", cpuS.schedstat, cpuH.schedstat)
        let added = s.idleRSS - o.rssWithoutBridge
        lines.append("  idle RSS MiB: switchboardd \(mib(s.idleRSS)) with the bridge, \(mib(o.rssWithoutBridge)) without: the bridge adds \(String(format: "%.2f", Double(added) / 1_048_576)) MiB (goal ≤ 2 MiB: \(added <= 2 * 1_048_576 ? "met" : "not met")); HAP-python \(mib(h.idleRSS))")
        lines.append("  RSS MiB after the run (one paired session): switchboardd \(mib(s.rssAfter)), HAP-python \(mib(h.rssAfter))")
        lines.append("  HAP-python's set_value holds a Switch's event up to 0.5 s to coalesce changes (EVENT_COALESCE_TIME_WINDOW); the second toggle row is its immediate path")
        json.append(#""rss_idle_mib_switchboardd":\#(mib(s.idleRSS)),"rss_idle_mib_without_bridge":\#(mib(o.rssWithoutBridge)),"bridge_adds_kib":\#(added / 1024),"rss_idle_mib_hap_python":\#(mib(h.idleRSS)),"rss_after_mib_switchboardd":\#(mib(s.rssAfter)),"rss_after_mib_hap_python":\#(mib(h.rssAfter))"#)
        lines.append(#"{"benchmark":"homekit","writes":\#(writes),"events":\#(events),\#(json.joined(separator: ","))}"#)
        return lines
    }
}

extension String {
    /// The string right-aligned in `width` characters.
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
