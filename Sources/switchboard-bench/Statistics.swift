/// Percentiles of a set of durations.
struct Percentiles {
    let sorted: [Duration]

    init(_ samples: [Duration]) { sorted = samples.sorted() }

    func callAsFunction(_ percentile: Double) -> Duration {
        guard !sorted.isEmpty else { return .zero }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * percentile / 100).rounded()))
        return sorted[index]
    }

    var max: Duration { sorted.last ?? .zero }
}

extension Duration {
    /// Microseconds, with one decimal.
    var microseconds: String { String((seconds * 10_000_000).rounded() / 10) }

    /// Milliseconds, with one decimal.
    var milliseconds: String { String((seconds * 10_000).rounded() / 10) }

    /// Seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
