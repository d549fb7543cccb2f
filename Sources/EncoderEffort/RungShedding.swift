/// When the box gives up a whole rung, and when it takes one back: the step after effort
/// steps, decided over every stream's rungs at once from what each measured over its last
/// segment. Pure: plain reports in, a decision out, times from the caller's monotonic clock.
///
/// - Shed: a rung already at its cheapest step is still falling behind (frames dropped, or
///   busier than real time with frames queued) for `overloadedSegments` segments in a row.
///   Effort steps had their chance: every rung steps down before any is at its cheapest. The
///   rung given up is the costliest kept one that is not its stream's last, so every camera
///   keeps its lowest rung and viewers lose the least picture for the most CPU.
/// - Restore: nothing fell behind for `calmSeconds`, and what the kept rungs need plus what the
///   shed rung is expected to cost stays under `restoreShare` of the cores encoding may use
///   (`available`). A kept rung counts at what it measured, or at its cheapest step's cost when
///   that is less: a rung is worth more to a viewer than a rung's effort, so effort steps taken
///   back up while a rung is shed do not keep it out. The rung shed last comes back first.
/// - One change at a time, `settleSeconds` apart, so the next decision sees the last one's effect.
/// - A rung shed again after it came back waits twice as long for calm each time (up to
///   `maximumCalmSeconds`): a scene busier than the calibration's sample does not make it flap.
///   The first report of a rung taken back is not read: it measured the segment it was shed in.
public struct RungShedding: Sendable, Equatable {
    public struct Rung: Sendable, Hashable, CustomStringConvertible {
        public var stream: String
        public var variant: String
        public init(stream: String, variant: String) {
            self.stream = stream
            self.variant = variant
        }
        public var description: String { "\(stream)/\(variant)" }
    }

    /// One rung's last segment as its encoder measured it.
    public struct Report: Sendable, Equatable {
        public var rung: Rung
        /// Whether the rung runs at its cheapest effort step (no step down is left).
        public var atCheapestStep: Bool
        public var load: SegmentLoad
        public init(rung: Rung, atCheapestStep: Bool, load: SegmentLoad) {
            self.rung = rung
            self.atCheapestStep = atCheapestStep
            self.load = load
        }
    }

    public enum Decision: Sendable, Equatable {
        case shed(Rung, why: String)
        case restore(Rung, why: String)
    }

    /// Every stream's ladder, best rung first, and what each rung is expected to cost (cores'
    /// worth) when it runs: the calibration's figure at its cheapest step, else what it last
    /// measured before it was shed.
    public struct Ladder: Sendable, Equatable {
        public var stream: String
        public var rungs: [String]
        public var expectedCost: [String: Double]
        /// What the stream costs whatever its rungs (decoding its input), in cores.
        public var fixedCost: Double
        public init(stream: String, rungs: [String], expectedCost: [String: Double], fixedCost: Double = 0) {
            self.stream = stream
            self.rungs = rungs
            self.expectedCost = expectedCost
            self.fixedCost = fixedCost
        }
    }

    public static let overloadedSegments = 2
    public static let calmSeconds = 30.0
    public static let settleSeconds = 6.0
    public static let restoreShare = 0.85
    public static let maximumCalmSeconds = 240.0

    public let ladders: [Ladder]
    /// Cores' worth of CPU encoding may use (`CapacityPlan.available`).
    public let available: Double
    /// Rungs shed, oldest first.
    public private(set) var shed: [Rung]
    private var overloaded: [Rung: Int] = [:]
    private var lastShare: [Rung: Double] = [:]
    private var lastTrouble: Double?
    private var lastChange: Double?
    /// Times each rung was shed after it had come back.
    private var reshed: [Rung: Int] = [:]
    private var restoredOnce: Set<Rung> = []
    /// Rungs just taken back, whose next report is of the segment they were shed in.
    private var staleReport: Set<Rung> = []

    /// `shed`: rungs shed already (at start, by the calibration).
    public init(ladders: [Ladder], available: Double, shed: [Rung] = [], now: Double) {
        self.ladders = ladders
        self.available = available
        self.shed = shed
        lastChange = shed.isEmpty ? nil : now
        lastTrouble = shed.isEmpty ? nil : now
    }

    public func isShed(_ rung: Rung) -> Bool { shed.contains(rung) }

    /// Takes one rung's report at the end of its segment; returns what to change, if anything.
    public mutating func report(_ report: Report, now: Double) -> Decision? {
        guard !isShed(report.rung) else { return nil }
        if staleReport.remove(report.rung) != nil { return nil }
        let load = report.load
        lastShare[report.rung] = load.busyShare
        let behind = load.droppedFrames > 0 || (load.busyShare > 1 && load.backlogFrames > 0)
        if behind { lastTrouble = now }
        overloaded[report.rung] = behind && report.atCheapestStep ? (overloaded[report.rung] ?? 0) + 1 : 0
        if let last = lastChange, now - last < Self.settleSeconds { return nil }
        if (overloaded[report.rung] ?? 0) >= Self.overloadedSegments, let victim = costliestSheddable() {
            shed.append(victim)
            if restoredOnce.contains(victim) { reshed[victim, default: 0] += 1 }
            overloaded = [:]
            lastChange = now
            lastTrouble = now
            return .shed(victim, why: "\(report.rung) fell behind at its cheapest effort step (\(load.droppedFrames) frames dropped, busy \(CapacityPlan.cores(load.busyShare)) of real time)")
        }
        guard let candidate = shed.last, now - (lastTrouble ?? -Double.infinity) >= calm(for: candidate) else { return nil }
        let measured = lastShare.filter { !isShed($0.key) }.reduce(ladders.reduce(0) { $0 + $1.fixedCost }) { total, entry in
            total + min(entry.value, expectedCost(of: entry.key) ?? entry.value)
        }
        let expected = cost(of: candidate)
        guard measured + expected <= available * Self.restoreShare else { return nil }
        shed.removeLast()
        lastChange = now
        lastShare[candidate] = expected
        restoredOnce.insert(candidate)
        staleReport.insert(candidate)
        return .restore(candidate, why: "nothing fell behind for \(Int(calm(for: candidate))) s, and the kept rungs need about \(CapacityPlan.cores(measured)) cores "
            + "of \(CapacityPlan.cores(available)), with room for \(CapacityPlan.cores(expected)) more")
    }

    /// The kept rung that costs most, among those that are not their stream's last kept rung.
    /// How long nothing must fall behind before `rung` comes back: doubled each time it was shed
    /// again after coming back.
    public func calm(for rung: Rung) -> Double {
        var seconds = Self.calmSeconds
        for _ in 0..<(reshed[rung] ?? 0) { seconds = min(seconds * 2, Self.maximumCalmSeconds) }
        return seconds
    }

    private func costliestSheddable() -> Rung? {
        var best: (Rung, Double)?
        for ladder in ladders {
            let kept = ladder.rungs.filter { !isShed(Rung(stream: ladder.stream, variant: $0)) }
            guard kept.count > 1 else { continue }
            // A stream gives up its best rung first: the rest of its ladder stays whole.
            let rung = Rung(stream: ladder.stream, variant: kept[0])
            let cost = cost(of: rung)
            if best.map({ cost > $0.1 }) ?? true { best = (rung, cost) }
        }
        return best?.0
    }

    private func cost(of rung: Rung) -> Double {
        expectedCost(of: rung) ?? lastShare[rung] ?? 0
    }

    private func expectedCost(of rung: Rung) -> Double? {
        ladders.first { $0.stream == rung.stream }?.expectedCost[rung.variant]
    }

}
