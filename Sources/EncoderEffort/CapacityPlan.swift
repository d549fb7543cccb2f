import SidelineCore

/// Whether the configured streams fit on this machine, from the measured costs: the CPU they
/// need at their configured effort against what the box has (its cores less a share for
/// serving), and if they do not fit, the effort at which they would, or the ladder.
public struct CapacityPlan: Sendable, Equatable {
    public struct Stream: Sendable, Equatable {
        public var name: String
        public var ladder: [Rung]
        public init(name: String, ladder: [Rung]) {
            self.name = name
            self.ladder = ladder
        }
    }

    /// Share of the cores encoding may plan to use; the rest is for serving, the page, the OS
    /// and the peaks every encoder has (an IDR costs several frames' time).
    public static let encodingShare = 0.8

    /// Cores' worth of CPU at each uniform step: index 0 as configured, 1 one step down on
    /// every rung that has one, and so on.
    public let needByStep: [Double]
    public let available: Double
    public let cores: Int
    /// The first uniform step that fits; nil when not even the cheapest does.
    public let fittingStep: Int?
    /// The streams' names and the number of streams.
    public let streams: [Stream]
    /// When nothing fits: how many of each ladder's best rungs to leave out (same for all) so
    /// that the cheapest step fits; nil when even one rung per stream does not.
    public let rungsToLeaveOut: Int?

    public init(streams: [Stream], costs: CostTable, cores: Int) {
        self.streams = streams
        self.cores = cores
        available = Double(cores) * Self.encodingShare
        let depth = streams.flatMap(\.ladder).map { EffortSteps.steps(for: $0).count }.max() ?? 1
        func need(step: Int, leavingOut: Int) -> Double {
            streams.reduce(0.0) { total, stream in
                let rungs = stream.ladder.dropFirst(min(leavingOut, stream.ladder.count - 1))
                return total + costs.decode + rungs.reduce(0.0) { sum, rung in
                    let steps = EffortSteps.steps(for: rung)
                    let chosen = steps[min(step, steps.count - 1)]
                    return sum + (costs.cost(rung, chosen) ?? 0)
                }
            }
        }
        needByStep = (0..<depth).map { need(step: $0, leavingOut: 0) }
        let available = self.available
        fittingStep = needByStep.firstIndex { $0 <= available }
        if fittingStep == nil {
            let longest = streams.map(\.ladder.count).max() ?? 1
            rungsToLeaveOut = (1..<max(longest, 1)).first { need(step: depth - 1, leavingOut: $0) <= available }
        } else {
            rungsToLeaveOut = nil
        }
    }

    public var fits: Bool { fittingStep == 0 }

    /// The step name a uniform step index means for the first stream's best rung.
    private func stepName(_ index: Int) -> String {
        guard let rung = streams.first?.ladder.first else { return "step \(index)" }
        let steps = EffortSteps.steps(for: rung)
        return steps[min(index, steps.count - 1)].name
    }

    /// Cores to one decimal (`1.6`, `0.4`), as every message of this target writes them.
    static func cores(_ value: Double) -> String {
        let text = String(Int((value * 10).rounded()))
        return text.count == 1 ? "0.\(text)" : "\(text.dropLast()).\(text.suffix(1))"
    }

    /// One message for the operator when the streams do not fit at their configured effort; nil when they do.
    public var warning: String? {
        guard !fits else { return nil }
        let what = "\(streams.count) stream\(streams.count == 1 ? "" : "s") (\(streams.map(\.name).joined(separator: ", ")))"
        let head = "\(what) \(streams.count == 1 ? "needs" : "need") about \(Self.cores(needByStep[0])) cores at \(stepName(0)); this machine has \(cores) "
            + "(\(Self.cores(available)) for encoding)."
        if let step = fittingStep {
            let fitting = stepName(step)
            let setting = Rung.presets.contains(fitting) ? "set video.ladder[].preset: \(fitting) to start there for good, " : ""
            return head + " They fit at \(fitting) (\(Self.cores(needByStep[step])) cores): encoders start there and step up when"
                + " there is room. \(setting.isEmpty ? "C" : "Or \(setting)c")arry fewer streams, or use a machine with more cores to keep \(stepName(0))."
        }
        let shed = streams.first.map { shedRungs(of: $0) } ?? []
        let leaving = "Serving them without the best \(shed.count) rung\(shed.count == 1 ? "" : "s") of each ladder (\(shed.joined(separator: ", "))): "
            + "they leave the master, players on them switch down, and every frame of the rungs kept is encoded."
        if rungsToLeaveOut != nil {
            return head + " Even at \(stepName(needByStep.count - 1)) they need \(Self.cores(needByStep.last!)) cores. " + leaving
                + " To keep them, carry fewer streams or use a machine with more cores."
        }
        return head + " Even one rung per stream at \(stepName(needByStep.count - 1)) does not fit. " + leaving
            + " Frames will still be dropped: carry fewer streams."
    }

    /// The rungs of `stream` (its best first) served without encoding, so the rest fit: the
    /// same number from every ladder (`rungsToLeaveOut`), or every rung but the last when even
    /// one rung per stream does not fit; none when the cheapest step fits. A shed rung leaves
    /// the master (players switch down) and its playlist carries a sibling's segments, so
    /// nothing on it breaks and its recording stays aligned for when it comes back.
    public func shedRungs(of stream: Stream) -> [String] {
        guard fittingStep == nil else { return [] }
        let count = rungsToLeaveOut ?? max(stream.ladder.count - 1, 0)
        return stream.ladder.prefix(min(count, max(stream.ladder.count - 1, 0))).map(\.name)
    }

    /// x264 threads for each rung: one when there are at least as many rungs (of every stream)
    /// as cores, else 0 (x264's own choice, 1.5 per core). x264's default puts 27 threads on
    /// two cores for three cameras of three rungs; one thread per rung keeps each encoder's busy
    /// time a true measure of its headroom. Against the CLI it did not measurably change
    /// `sideline encode`'s CPU for three rungs (0.932x with x264's threads, 0.939x with one,
    /// single runs of `REPS=1 SKIP_LATENCY=1 scripts/bench/run encode`); one rung on two cores
    /// with two threads ran at 0.84x the CLI's speed against 1.00x with x264's choice
    /// (Docs/benchmarks.md, "x264 threads per rung").
    public static func threadsPerRung(rungs: Int, cores: Int) -> Int {
        rungs >= cores ? 1 : 0
    }

    public var threadsPerRung: Int {
        Self.threadsPerRung(rungs: streams.reduce(0) { $0 + $1.ladder.count }, cores: cores)
    }

    /// The step each stream's rungs start at: the fitting step when the configured one does not
    /// fit (so a start loses no frame finding it out), else 0.
    public var startingStep: Int { fittingStep ?? max(needByStep.count - 1, 0) }
}
