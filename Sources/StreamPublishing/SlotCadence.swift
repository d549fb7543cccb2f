/// When each slot's segment is due. Slot k covers the wall-clock span that starts D after
/// slot k - 1's; the span is anchored on the latest real segment's arrival, so the cadence
/// follows the pipeline (a camera's clock drifts against the server's over a long match)
/// instead of a fixed origin. A slot's segment is due when its span ends, and late once its
/// deadline (due + grace) has passed. Times are monotonic seconds.
public struct SlotCadence: Sendable, Equatable {
    public let segmentDuration: Double
    public let grace: Double
    /// A slot and the instant its span starts.
    public struct Anchor: Sendable, Equatable {
        public var slot: Int
        public var start: Double
    }

    public private(set) var anchor: Anchor?
    /// Set by `fix(slot:startingAt:)`: the anchor never moves (an angle of a set keeps the
    /// set's grid; its pipeline keeps its frames on it instead).
    public private(set) var isFixed = false

    public init(segmentDuration: Double, grace: Double) {
        precondition(segmentDuration > 0 && grace >= 0)
        self.segmentDuration = segmentDuration
        self.grace = grace
    }

    public func start(of slot: Int) -> Double? {
        anchor.map { $0.start + Double(slot - $0.slot) * segmentDuration }
    }

    /// The end of the slot's span, when its segment should be published.
    public func due(_ slot: Int) -> Double? { start(of: slot).map { $0 + segmentDuration } }

    /// When the slot counts as late and is filled.
    public func deadline(_ slot: Int) -> Double? { due(slot).map { $0 + grace } }

    /// When an empty slot is filled: at its deadline while an encoder may still deliver it, at
    /// its end when none can. `runFirstSlot`: the first slot of the running pipeline (its
    /// encoders make nothing before it), nil before this process began a run. Before a run, a
    /// slot that started more than half a grace ago is never a pipeline's first
    /// (`firstSlot(startingAfter:notBefore:)`): a restarted server's missed slots are listed
    /// as they end, so a player at the live edge is not left waiting out a grace for nothing.
    public func fillTime(of slot: Int, runFirstSlot: Int?) -> Double? {
        guard let start = start(of: slot), let due = due(slot) else { return nil }
        guard let runFirstSlot else { return max(due, start + grace / 2) }
        return slot < runFirstSlot ? due : deadline(slot)
    }

    /// Slot `slot`'s segment was published at `now`: its span ended then. Only a newer slot
    /// moves the anchor (the first variant to deliver a slot sets the pace for the others).
    public mutating func arrived(slot: Int, at now: Double) {
        if isFixed { return }
        if let anchor, anchor.slot >= slot { return }
        anchor = Anchor(slot: slot, start: now - segmentDuration)
    }

    /// Anchors the cadence where nothing has arrived yet (a restarted process).
    public mutating func anchor(slot: Int, startingAt start: Double) {
        anchor = Anchor(slot: slot, start: start)
    }

    /// Anchors the cadence on a set's grid for good: slot `slot` starts at `start`, whatever arrives.
    public mutating func fix(slot: Int, startingAt start: Double) {
        anchor = Anchor(slot: slot, start: start)
        isFixed = true
    }

    /// The first slot, not before `earliest`, whose span starts no sooner than `now` minus
    /// half the grace: a pipeline started at `now` delivers it before its deadline.
    public func firstSlot(startingAfter now: Double, notBefore earliest: Int) -> Int {
        guard let anchor else { return earliest }
        let wanted = anchor.slot + Int(((now - grace / 2 - anchor.start) / segmentDuration).rounded(.up))
        return max(earliest, wanted)
    }
}
