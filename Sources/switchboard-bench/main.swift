// switchboard-bench: Switchboard's benchmarks, run in release mode (BENCHMARKS.md).
//   swift run -c release switchboard-bench gpio-edge [edges]          (simulated chip)
//   switchboard-bench gpio-edge-kernel [edges]                         (gpio-sim, in the HIL VM, as root)
//   swift run -c release switchboard-bench button [presses]
//   swift run -c release switchboard-bench mqtt [commands] [idle-seconds]
//   swift run -c release switchboard-bench extension [commands]
//   swift run -c release switchboard-bench soak [minutes] [commands-per-second]
// Each prints a table and one JSON line.

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
default:
    print("usage: switchboard-bench gpio-edge [edges] | gpio-edge-kernel [edges] | button [presses] | mqtt [commands] [idle-seconds] | extension [commands] | soak [minutes] [rate]")
}
