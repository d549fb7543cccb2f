/// When a rung's encoder steps its effort down or up, decided at each segment boundary from
/// what the rung measured over the segment that just ended.
///
/// Down at once, when the rung is falling behind: frames were dropped, frames are queued
/// (`backlogSeconds`), or it was busy for more than `stepDownBusy` of the segment. Two steps
/// when it is far behind (dropped frames, or busier than the segment was long), since every
/// further segment at the old step loses more. Up slowly: only after `calmSegments` segments
/// in a row in which the step above would, by its relative cost, have stayed under
/// `stepUpBusy`, and not before `hold` seconds have passed since the last step down. A step up
/// that is followed by a step down within `hold` doubles `hold` (up to `maximumHold`), so a
/// rung on the edge settles instead of flapping; an up step that lasts `maximumHold` resets it.
public struct EffortRule: Sendable, Equatable {
    public var stepDownBusy: Double
    /// Seconds of frames queued at a boundary that count as falling behind.
    public var backlogSeconds: Double
    public var stepUpBusy: Double
    public var calmSegments: Int
    public var hold: Double
    public var maximumHold: Double

    public init(stepDownBusy: Double = 0.85, backlogSeconds: Double = 0.3, stepUpBusy: Double = 0.6, calmSegments: Int = 5,
                hold: Double = 20, maximumHold: Double = 320) {
        self.stepDownBusy = stepDownBusy
        self.backlogSeconds = backlogSeconds
        self.stepUpBusy = stepUpBusy
        self.calmSegments = calmSegments
        self.hold = hold
        self.maximumHold = maximumHold
    }

    public static let standard = EffortRule()
}

/// A change of step the rule decided.
public enum EffortChange: Sendable, Equatable {
    case down(to: Int)
    case up(to: Int)
}

/// One rung's effort over time: its step (0 = as configured), and what the rule remembers.
/// Owned by the rung's encoder thread; `now` comes from the caller's clock (seconds on a
/// monotonic clock), so tests drive it with plain numbers.
public struct EffortState: Sendable, Equatable {
    public let rule: EffortRule
    /// Relative cost of each step against step 0, cheapest last (`EffortStep.relativeCost`).
    public let costs: [Double]
    public let frameRate: Double
    public private(set) var step: Int
    private var calm = 0
    private var lastDown: Double?
    private var lastUp: Double?
    private var hold: Double

    public init(rule: EffortRule = .standard, costs: [Double], frameRate: Double, startingStep: Int = 0) {
        precondition(!costs.isEmpty, "a rung has at least its configured step")
        self.rule = rule
        self.costs = costs
        self.frameRate = frameRate
        self.step = min(max(0, startingStep), costs.count - 1)
        self.hold = rule.hold
    }

    public var cheapest: Int { costs.count - 1 }

    /// The change to make at the boundary after a segment with `load`, measured at `now`; nil to stay.
    public mutating func decide(after load: SegmentLoad, at now: Double) -> EffortChange? {
        let busy = load.busyShare
        let behind = load.droppedFrames > 0 || Double(load.backlogFrames) > rule.backlogSeconds * frameRate
        if behind || busy > rule.stepDownBusy {
            calm = 0
            guard step < cheapest else { return nil }
            let far = load.droppedFrames > 0 || busy > 1
            if let lastUp, now - lastUp < hold { hold = min(hold * 2, rule.maximumHold) }
            step = min(cheapest, step + (far ? 2 : 1))
            lastDown = now
            return .down(to: step)
        }
        // An up step that has held (no step down since) for the longest hold: the rung is not on the edge.
        if let lastUp, lastUp > (lastDown ?? -.infinity), now - lastUp >= rule.maximumHold { hold = rule.hold }
        guard step > 0 else {
            calm = 0
            return nil
        }
        let busyAbove = busy * costs[step - 1] / max(costs[step], 0.01)
        calm = busyAbove < rule.stepUpBusy && load.backlogFrames <= 1 ? calm + 1 : 0
        guard calm >= rule.calmSegments, now - (lastDown ?? -.infinity) >= hold else { return nil }
        calm = 0
        step -= 1
        lastUp = now
        return .up(to: step)
    }

    /// Seconds a step up now waits after a step down (doubles when the rung flaps).
    public var currentHold: Double { hold }
}
