/// What `sideline push` encodes and sends from one measurement of its uplink to the next:
/// the plan of `PushLadder` for what the link carried, with one brake. A rung dropped for a
/// slow link comes back only when two measurements in a row would keep it, so a link on the
/// edge does not make the server switch a rung between its own segments and a sibling's every
/// segment. Bit rates follow each measurement at once, down and up (the measure of a faster
/// link is only as large as the segments sent allow, so waiting would only slow the way up).
/// Pure.
public struct PushRateFollower: Sendable, Equatable {
    public let ladder: PushLadder
    public let rule: UploadBitRate
    /// What is encoded and sent now.
    public private(set) var plan: PushLadder.Plan
    /// Measurements in a row whose plan kept more rungs than `plan`.
    private var widerInARow = 0
    /// The link measured last, bits per second the next segments may use (nil: not measured,
    /// or too fast to time).
    public private(set) var link: Int?
    /// Measurements in a row a dropped rung must be kept by before it comes back.
    public static let confirmations = 2

    public init(ladder: PushLadder, rule: UploadBitRate) {
        self.ladder = ladder
        self.rule = rule
        plan = ladder.full
    }

    /// `bytes` went up in `seconds` (the segments of one slot, every rung sent). Returns the
    /// new plan when it changed.
    public mutating func measured(bytes: Int, seconds: Double) -> PushLadder.Plan? {
        link = rule.next(afterUploading: bytes, in: seconds)
        var next = ladder.plan(link: link)
        if next.sent.count > plan.sent.count {
            widerInARow += 1
            if widerInARow < Self.confirmations {
                // Not yet: the same rungs as now, at what this link gives them.
                next = narrowed(next, to: plan.sent.count)
            } else {
                widerInARow = 0
            }
        } else {
            widerInARow = 0
        }
        guard next != plan else { return nil }
        plan = next
        return next
    }

    /// An upload of `bytes` has been going for `seconds` and is not through: the link carries
    /// less than `bytes` in `seconds`. When that bound already calls for less than the plan,
    /// the plan steps down now, without waiting for the upload to end (on a link that just got
    /// slower, the segment being uploaded takes longer than a segment duration, and the one
    /// being encoded meanwhile would be made for the old link too). Never a step up. Returns
    /// the new plan when it changed.
    public mutating func stillUploading(bytes: Int, seconds: Double) -> PushLadder.Plan? {
        guard let bound = rule.next(afterUploading: bytes, in: seconds) else { return nil }
        let next = ladder.plan(link: bound)
        guard next.videoBitRate < plan.videoBitRate || next.sent.count < plan.sent.count else { return nil }
        link = bound
        widerInARow = 0
        plan = next
        return next
    }

    /// While an upload drags, the plan steps down at most this often: each step re-tunes the
    /// encoders, and in a quarter of a second the bound an upload gives moves by a few percent.
    public static let stepInterval = 0.25

    /// How long an upload of `bytes` may go on before `stillUploading` steps the plan down:
    /// from then on the bound it gives is below what the plan's rungs and their audio need.
    /// nil when the plan cannot go lower (the best rung alone at the minimum). The uploader's
    /// watchdog sleeps until then instead of polling.
    public func stepDownAfter(bytes: Int) -> Double? {
        guard plan != ladder.plan(link: 0) else { return nil }
        let need = plan.videoBitRate + plan.sent.count * ladder.audioBitRate
        guard need > 0 else { return nil }
        return Double(bytes) * 8 * rule.ratio / Double(need)
    }

    /// The plan of the first `count` rungs alone for the link measured (a prefix of a plan
    /// that keeps more rungs keeps them all, each at a rate at least as high).
    private func narrowed(_ wider: PushLadder.Plan, to count: Int) -> PushLadder.Plan {
        var only = PushLadder(rungs: Array(ladder.rungs.prefix(count)), audioBitRate: ladder.audioBitRate, minimum: ladder.minimum, maximum: ladder.maximum).plan(link: link)
        only.dropped = ladder.rungs.dropFirst(count).map(\.name)
        return only
    }
}
