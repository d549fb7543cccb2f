import SidelineCore

/// One setting of a rung's x264 encoder, from the configured preset down to the cheapest
/// Sideline will use. A rung changes step only at a segment boundary, where a new encoder
/// starts with the forced IDR: players see a new coded sequence, never a change inside one.
public struct EffortStep: Sendable, Equatable {
    /// Shown on the status line, `/api/streams` and the page: the preset, or `ultrafast-b`.
    public var name: String
    /// The x264 preset the step starts from.
    public var preset: String
    /// x264 options on top of the preset (`key=value:...`), empty for none.
    public var x264Params: String
    /// CPU per frame against the configured step's, as `scripts/bench/encoding/effort_steps.py`
    /// measured it on the default ladder (Docs/benchmarks.md, "Effort steps"). The rule uses
    /// it to predict whether a step up would still keep up; calibration replaces it with this
    /// machine's figure where it has one.
    public var relativeCost: Double

    public init(name: String, preset: String, x264Params: String = "", relativeCost: Double) {
        self.name = name
        self.preset = preset
        self.x264Params = x264Params
        self.relativeCost = relativeCost
    }
}

public enum EffortSteps {
    /// The step below `superfast`: ultrafast with B-frames (b-pyramid) and CABAC put back.
    /// Every step keeps B-frames with b-pyramid, as every preset from superfast up has them:
    /// x264's decode delay is then two frames at every step, so DTS never goes backwards where
    /// a new encoder joins the stream. Plain `ultrafast` has no B-frames (switching to it and
    /// back would break that) and no CABAC (10-15% more bits for the same picture).
    ///
    /// `scripts/bench/encoding/effort_steps.py` measured it cheaper than superfast with subme 0, no
    /// partitions and no weighted prediction ("superfast-lean", 0.53-0.68x of veryfast) on
    /// every rung, at a higher PSNR, so that candidate is not a step (Docs/benchmarks.md).
    static let belowSuperfast = [
        // 0.40-0.49 of veryfast on the three rungs (effort_steps.py): their middle.
        EffortStep(name: "ultrafast-b", preset: "ultrafast", x264Params: "bframes=3:b-pyramid=normal:cabac=1", relativeCost: 0.45),
    ]

    /// Cost against veryfast: superfast 0.6 (0.59-0.64 measured on the three rungs by
    /// `scripts/bench/encoding/effort_steps.py`, Docs/benchmarks.md "Effort steps"). Presets slower than
    /// veryfast were not measured: 1.3x per preset is a guess that only orders them, and the
    /// rule's step-up prediction uses the machine's calibrated figures where it has them.
    private static func presetCost(_ preset: String) -> Double {
        let index = Rung.presets.firstIndex(of: preset) ?? 2
        return index == 1 ? 0.6 : pow13(index - 2)
    }

    private static func pow13(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<max(0, exponent) { value *= 1.3 }
        return value
    }

    /// The steps a rung may run at, the configured preset first. A rung configured at
    /// `ultrafast` has no cheaper step. A baseline rung's last step is plain ultrafast: its
    /// other steps have no B-frames and no CABAC either (the profile takes them away), and
    /// `ultrafast-b`'s parameters, applied after the profile, would put them back.
    public static func steps(for rung: Rung) -> [EffortStep] {
        let configured = Rung.presets.firstIndex(of: rung.preset) ?? 2
        guard configured > 0 else { return [EffortStep(name: rung.preset, preset: rung.preset, relativeCost: 1)] }
        let anchor = presetCost(rung.preset)
        var steps: [EffortStep] = []
        // The configured preset, then each faster preset down to superfast.
        for index in stride(from: configured, through: 1, by: -1) {
            let preset = Rung.presets[index]
            steps.append(EffortStep(name: preset, preset: preset, relativeCost: presetCost(preset) / anchor))
        }
        for step in belowSuperfast {
            var scaled = rung.profile == "baseline" ? EffortStep(name: "ultrafast", preset: "ultrafast", relativeCost: step.relativeCost) : step
            scaled.relativeCost = step.relativeCost / anchor
            steps.append(scaled)
        }
        return steps
    }
}
