// switchboard-bench: Switchboard's benchmarks, run in release mode.
//   swift run -c release switchboard-bench gpio-edge [edges]
// Prints a table and one JSON line.

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "gpio-edge":
    let count = arguments.dropFirst().first.flatMap(Int.init) ?? 20_000
    let latencies = try await EdgeLatencyBenchmark(edges: count).run()
    let p = Percentiles(latencies)
    print("gpio-edge: simulated chip, edge → handler in another task, one in flight, \(latencies.count) edges")
    print("  p50 \(p(50).microseconds) µs   p90 \(p(90).microseconds) µs   p99 \(p(99).microseconds) µs   max \(p.max.microseconds) µs")
    print(#"{"benchmark":"gpio-edge","edges":\#(latencies.count),"p50_us":\#(p(50).microseconds),"p90_us":\#(p(90).microseconds),"p99_us":\#(p(99).microseconds),"max_us":\#(p.max.microseconds)}"#)
default:
    print("usage: switchboard-bench gpio-edge [edges]")
}
