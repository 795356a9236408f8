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
    var microseconds: String {
        let (seconds, attoseconds) = components
        let micros = Double(seconds) * 1_000_000 + Double(attoseconds) / 1_000_000_000_000
        return String((micros * 10).rounded() / 10)
    }
}
