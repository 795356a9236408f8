// switchboard-bench: Switchboard's benchmarks, run in release mode (BENCHMARKS.md).
//   swift run -c release switchboard-bench gpio-edge [edges]          (simulated chip)
//   switchboard-bench gpio-edge-kernel [edges]                         (gpio-sim, in the HIL VM, as root)
//   swift run -c release switchboard-bench button [presses]
//   swift run -c release switchboard-bench mqtt [commands] [idle-seconds]
//   switchboard-bench mqtt-profile [in-flight] [seconds]               (switchboardd alone, for perf; 0 in flight: reload storms)
//   swift run -c release switchboard-bench extension [commands]
//   swift run -c release switchboard-bench soak [minutes] [commands-per-second]
//   swift run -c release switchboard-bench fleet [nodes] [controls] [commands]
//   swift run -c release switchboard-bench homekit [writes] [events]   (beside HAP-python 5.0; aiohomekit's and HAP-python's venvs)
// Each prints a table and one JSON line.

import Foundation
import SwitchboardGPIO

let arguments = Array(CommandLine.arguments.dropFirst())
func number(_ index: Int, _ fallback: Int) -> Int { arguments.count > index ? Int(arguments[index]) ?? fallback : fallback }

switch arguments.first {
case "gpio-edge", "gpio-edge-kernel":
    let kernel = arguments.first == "gpio-edge-kernel"
    let latencies = try await EdgeLatencyBenchmark(edges: number(1, kernel ? 2_000 : 20_000), bench: kernel ? .kernel : .simulated).run()
    let p = Percentiles(latencies)
    let bench = kernel ? "gpio-sim through \(LibgpiodChip.libraryVersion)" : "simulated chip"
    print("\(arguments[0]): \(bench), edge → handler in another task, one in flight, \(latencies.count) edges")
    print("  p50 \(p(50).microseconds) µs   p90 \(p(90).microseconds) µs   p99 \(p(99).microseconds) µs   max \(p.max.microseconds) µs")
    print(#"{"benchmark":"\#(arguments[0])","library":"\#(LibgpiodChip.libraryVersion)","edges":\#(latencies.count),"p50_us":\#(p(50).microseconds),"p90_us":\#(p(90).microseconds),"p99_us":\#(p(99).microseconds),"max_us":\#(p.max.microseconds)}"#)
case "button":
    let outcome = try await ButtonBenchmark(presses: number(1, 200)).run()
    let hint = Percentiles(outcome.hint), perform = Percentiles(outcome.perform)
    print("button: Action button on the simulated chip, in process, \(outcome.hint.count) presses (hold 40 ms, debounce 2 ms)")
    print("  press edge → hint announced: p50 \(hint(50).microseconds) µs   p99 \(hint(99).microseconds) µs")
    print("  hold threshold + debounce → output changed: p50 \(perform(50).microseconds) µs   p99 \(perform(99).microseconds) µs")
    print(#"{"benchmark":"button","presses":\#(outcome.hint.count),"hint_p50_us":\#(hint(50).microseconds),"hint_p99_us":\#(hint(99).microseconds),"perform_p50_us":\#(perform(50).microseconds),"perform_p99_us":\#(perform(99).microseconds)}"#)
case "mqtt":
    var benchmarks = MQTTBenchmarks()
    benchmarks.commands = number(1, 10_000)
    benchmarks.idleSeconds = number(2, 30)
    print("mqtt: mosquitto on loopback, the C floor and a release switchboardd with 100 controls")
    try await benchmarks.run()
    print(benchmarks.jsonLine)
case "mqtt-profile":
    // switchboardd alone under commands for a profiler to watch: the pid is printed, then
    // `seconds` of round trips with `in-flight` outstanding (0: reload storms), then nothing more.
    let inFlight = number(1, 1), seconds = number(2, 10)
    try await MQTTBenchmarks.profile(inFlight: inFlight, seconds: seconds)
case "extension":
    let (direct, hosted) = try await ExtensionBenchmark(commands: number(1, 2_000)).run()
    let d = Percentiles(direct), e = Percentiles(hosted)
    print("extension: MQTT command → state round trip of one relay, one in flight, \(direct.count) commands, release switchboardd")
    print("  devices.json toggle:    p50 \(d(50).microseconds) µs   p90 \(d(90).microseconds) µs   p99 \(d(99).microseconds) µs   max \(d.max.microseconds) µs")
    print("  extension's Swift toggle: p50 \(e(50).microseconds) µs   p90 \(e(90).microseconds) µs   p99 \(e(99).microseconds) µs   max \(e.max.microseconds) µs")
    print(#"{"benchmark":"extension","commands":\#(direct.count),"direct_p50_us":\#(d(50).microseconds),"direct_p99_us":\#(d(99).microseconds),"extension_p50_us":\#(e(50).microseconds),"extension_p99_us":\#(e(99).microseconds)}"#)
case "soak":
    let soak = SoakBenchmark(minutes: number(1, 30), rate: number(2, 500))
    print("soak: \(soak.minutes) min of MQTT commands at \(soak.rate)/s over 64 controls, remote state messages, CLI clients and a SIGHUP a minute, release switchboardd")
    let outcome = try await soak.run()
    print("  minute   RSS KiB   descriptors   commands")
    for sample in outcome.samples {
        print("  \(String(format: "%6.1f", sample.at.seconds / 60))   \(String(format: "%7d", sample.residentKiB))   \(String(format: "%11d", sample.descriptors))   \(sample.commands)")
    }
    let rss = SoakBenchmark.slopePerHour(outcome.samples, \.residentKiB), fds = SoakBenchmark.slopePerHour(outcome.samples, \.descriptors)
    let marks = SoakBenchmark.highWaterPerFiveMinutes(outcome.samples)
    print("  RSS high-water per 5 min: \(marks.map { "\($0) KiB" }.joined(separator: ", "))")
    print("  second half: RSS \(String(format: "%+.1f", rss)) KiB/h, descriptors \(String(format: "%+.2f", fds))/h")
    print("  commands \(outcome.sent), answered \(outcome.answered), reordered \(outcome.reordered), wrong final states \(outcome.wrongFinalStates), CLI failures \(outcome.cliFailures), reloads \(outcome.reloads)")
    let first = outcome.samples.first, last = outcome.samples.last
    print(#"{"benchmark":"soak","minutes":\#(soak.minutes),"rate":\#(soak.rate),"commands":\#(outcome.sent),"answered":\#(outcome.answered),"reordered":\#(outcome.reordered),"wrong_final":\#(outcome.wrongFinalStates),"cli_failures":\#(outcome.cliFailures),"reloads":\#(outcome.reloads),"rss_start_kib":\#(first?.residentKiB ?? 0),"rss_end_kib":\#(last?.residentKiB ?? 0),"fds_start":\#(first?.descriptors ?? 0),"fds_end":\#(last?.descriptors ?? 0),"rss_slope_kib_per_h":\#(String(format: "%.1f", rss)),"fds_slope_per_h":\#(String(format: "%.2f", fds)),"rss_high_water_kib":[\#(marks.map(String.init).joined(separator: ","))]}"#)
case "fleet":
    var bench = FleetBenchmark(nodes: number(1, 50), controls: number(2, 20), commands: number(3, 1_000))
    // SWITCHBOARD_BENCH_MOSQUITTO_DEFAULTS=1: the nodes' broker with mosquitto's own queue limit.
    if ProcessInfo.processInfo.environment["SWITCHBOARD_BENCH_MOSQUITTO_DEFAULTS"] == "1" { bench.maxQueuedMessages = nil }
    print("fleet: \(bench.nodes) release switchboardd processes × \(bench.controls) relay toggles on simulated chips, one loopback mosquitto (max_queued_messages \(bench.maxQueuedMessages.map(String.init) ?? "mosquitto's default")), then a second bridged to it")
    let o = try await bench.run()
    let start = Percentiles(o.nodeStartup), cold = Percentiles(o.pictureColdStart), center = Percentiles(o.centerProcess)
    let fleet = Percentiles(o.fleet), socket = Percentiles(o.socket), bridged = Percentiles(o.bridged)
    let fleetCLI = Percentiles(o.fleetCLI), socketCLI = Percentiles(o.socketCLI)
    func ratio(_ a: Duration, _ b: Duration) -> String { String(format: "%.2f", a.seconds / max(b.seconds, 1e-9)) }
    func mib(_ bytes: [Int]) -> (String, String) {
        (String(format: "%.1f", Double(bytes.reduce(0, +)) / Double(max(bytes.count, 1)) / 1_048_576), String(format: "%.1f", Double(bytes.max() ?? 0) / 1_048_576))
    }
    let idle = mib(o.idleRSS), loaded = mib(o.loadedRSS), own = mib(o.loadedAnonymous)
    let perCommand = o.messagesPerCommand.values.reduce(0, +)
    print("  node start → READY: p50 \(start(50).milliseconds) ms   max \(start.max.milliseconds) ms")
    print("  fleet picture, cold (connect → \(bench.nodes) nodes' status, lock, presentations): p50 \(cold(50).milliseconds) ms   max \(cold.max.milliseconds) ms   complete: \(o.pictureComplete)")
    print("  switchboard --broker … center --json, whole process (300 ms quiet wait included): p50 \(center(50).milliseconds) ms")
    print("  command, one in flight, \(o.fleet.count) commands:")
    print("    through the broker (/set → /result): p50 \(fleet(50).microseconds) µs   p99 \(fleet(99).microseconds) µs")
    print("    on the node's own socket:             p50 \(socket(50).microseconds) µs   p99 \(socket(99).microseconds) µs")
    print("    ratio: p50 \(ratio(fleet(50), socket(50)))×   p99 \(ratio(fleet(99), socket(99)))×")
    print("    a client on the bridged broker saw \(o.bridgeSeen) of \(bench.nodes) nodes online, \(o.bridgeSeesAll.milliseconds) ms after it connected")
    print("    through the bridge (\(o.bridged.count)):           p50 \(bridged(50).microseconds) µs   p99 \(bridged(99).microseconds) µs   (\(ratio(bridged(50), fleet(50)))× one broker's p50)")
    print("  CLI processes, \(o.fleetCLI.count) each: --broker on node/id p50 \(fleetCLI(50).milliseconds) ms p99 \(fleetCLI(99).milliseconds) ms; --socket on id p50 \(socketCLI(50).milliseconds) ms p99 \(socketCLI(99).milliseconds) ms")
    print("  broker messages per command: \(String(format: "%.2f", perCommand)) (\(o.messagesPerCommand.sorted { $0.key < $1.key }.map { "\($0.key) \(String(format: "%.2f", $0.value))" }.joined(separator: ", ")))")
    print("  RSS per node: idle mean \(idle.0) MiB (max \(idle.1)), after the load mean \(loaded.0) MiB (max \(loaded.1)), of which the node's own (anonymous) mean \(own.0) MiB")
    print("  the nodes' broker restarted under \(o.outageSent) bridged commands (50/s): performed (answered) \(o.outageAnswered), controls on \(o.outageOn) of \(o.outageSent), last answer \(o.outageRecovery.milliseconds) ms after the restart")
    print(#"{"benchmark":"fleet","nodes":\#(bench.nodes),"controls":\#(bench.controls),"commands":\#(o.fleet.count),"cold_p50_ms":\#(cold(50).milliseconds),"cold_max_ms":\#(cold.max.milliseconds),"center_process_p50_ms":\#(center(50).milliseconds),"fleet_p50_us":\#(fleet(50).microseconds),"fleet_p99_us":\#(fleet(99).microseconds),"socket_p50_us":\#(socket(50).microseconds),"socket_p99_us":\#(socket(99).microseconds),"bridge_nodes_seen":\#(o.bridgeSeen),"bridged_p50_us":\#(bridged(50).microseconds),"bridged_p99_us":\#(bridged(99).microseconds),"messages_per_command":\#(String(format: "%.2f", perCommand)),"rss_idle_mean_mib":\#(idle.0),"rss_loaded_mean_mib":\#(loaded.0),"anonymous_loaded_mean_mib":\#(own.0),"outage_sent":\#(o.outageSent),"outage_answered":\#(o.outageAnswered),"outage_on":\#(o.outageOn)}"#)
case "homekit":
    let bench = HomeKitBenchmark(writes: number(1, 2_000), events: number(2, 50))
    let outcome = try await bench.run()
    bench.report(outcome).forEach { print($0) }
default:
    print("usage: switchboard-bench gpio-edge [edges] | gpio-edge-kernel [edges] | button [presses] | mqtt [commands] [idle-seconds] | extension [commands] | soak [minutes] [rate] | fleet [nodes] [controls] [commands] | homekit [writes] [events]")
}
