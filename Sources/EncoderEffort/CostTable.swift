import SidelineCore

/// What encoding costs on this machine: CPU seconds per second of media for each rung at each
/// effort step (one x264 thread, scale included), and for decoding the calibration input.
/// Measured by `sideline encode --calibrate` or at `serve`'s start for rungs it does not hold
/// yet, and kept (`Docs/operations.md`, "What the box can carry").
public struct CostTable: Sendable, Equatable, Codable {
    /// Which machine measured it: a table from another CPU is not used.
    public var machine: String
    /// CPU seconds per media second of decoding the calibration input (per stream).
    public var decode: Double
    /// `key(rung, step)` to CPU seconds per media second.
    public var entries: [String: Double]

    public init(machine: String, decode: Double = 0, entries: [String: Double] = [:]) {
        self.machine = machine
        self.decode = decode
        self.entries = entries
    }

    /// What identifies a measurement: the picture size and rate control of the rung (what x264's
    /// cost depends on) and the step, not the rung's name.
    public static func key(_ rung: Rung, _ step: EffortStep) -> String {
        "\(rung.width)x\(rung.height)@\(rung.bitrate.bitsPerSecond / 1000)k/\(rung.profile)/\(step.name)"
    }

    public func cost(_ rung: Rung, _ step: EffortStep) -> Double? { entries[Self.key(rung, step)] }

    /// The rungs (with their steps) the table has no figure for.
    public func missing(_ rungs: [Rung]) -> [Rung] {
        var seen = Set<String>()
        return rungs.filter { rung in
            let steps = EffortSteps.steps(for: rung)
            let key = Self.key(rung, steps[0])
            guard seen.insert(key).inserted else { return false }
            return steps.contains { cost(rung, $0) == nil }
        }
    }

    /// Relative cost of each of `rung`'s steps against its first, from this table where it has
    /// both figures, else the step's own estimate.
    public func relativeCosts(_ rung: Rung) -> [Double] {
        let steps = EffortSteps.steps(for: rung)
        guard let anchor = cost(rung, steps[0]), anchor > 0 else { return steps.map(\.relativeCost) }
        return steps.map { step in cost(rung, step).map { $0 / anchor } ?? step.relativeCost }
    }

    public mutating func merge(_ other: CostTable) {
        decode = other.decode > 0 ? other.decode : decode
        entries.merge(other.entries) { _, new in new }
    }
}
