import EncoderEffort
import Testing

/// The effort rule, segment by segment, on plain measurements and a clock that is a number.
@Suite struct EffortRuleTests {
    static let costs = [1.0, 0.65, 0.55, 0.47]
    static let segment = 2.0

    func state(startingStep: Int = 0, rule: EffortRule = .standard) -> EffortState {
        EffortState(rule: rule, costs: Self.costs, frameRate: 30, startingStep: startingStep)
    }

    func load(busy: Double, backlog: Int = 0, dropped: Int = 0) -> SegmentLoad {
        SegmentLoad(mediaSeconds: Self.segment, busySeconds: busy * Self.segment, backlogFrames: backlog, droppedFrames: dropped)
    }

    /// Feeds `loads` one per segment from `start`; returns every change with its time.
    func run(_ state: inout EffortState, _ loads: [SegmentLoad], from start: Double = 0) -> [(Double, EffortChange)] {
        var changes: [(Double, EffortChange)] = []
        for (index, load) in loads.enumerated() {
            let now = start + Double(index + 1) * Self.segment
            if let change = state.decide(after: load, at: now) { changes.append((now, change)) }
        }
        return changes
    }

    @Test func aRungWithRoomStaysAsConfigured() {
        var effort = state()
        #expect(run(&effort, Array(repeating: load(busy: 0.5), count: 100)).isEmpty)
        #expect(effort.step == 0)
    }

    @Test(arguments: [
        // busy share, backlog frames, dropped frames, expected step after one segment
        (0.86, 0, 0, 1), // busier than 85% of the segment
        (0.5, 10, 0, 1), // a third of a second queued: falling behind
        (0.5, 9, 0, 0),  // 9 frames at 30 fps is under 0.3 s
        (1.2, 0, 0, 2),  // busier than the segment is long: two steps
        (0.5, 0, 1, 2),  // a frame was dropped: two steps
        (0.85, 0, 0, 0), // exactly at the threshold stays
    ])
    func stepsDownAtOnceWhenBehind(busy: Double, backlog: Int, dropped: Int, expected: Int) {
        var effort = state()
        _ = effort.decide(after: load(busy: busy, backlog: backlog, dropped: dropped), at: 2)
        #expect(effort.step == expected)
    }

    @Test func theCheapestStepIsTheFloorAndThenFramesMayDrop() {
        var effort = state(startingStep: 3)
        #expect(effort.decide(after: load(busy: 1.5, dropped: 20), at: 2) == nil)
        #expect(effort.step == 3)
        var near = state(startingStep: 2)
        #expect(near.decide(after: load(busy: 1.5, dropped: 5), at: 2) == .down(to: 3))
    }

    @Test func stepsUpOnlyAfterCalmSegmentsAndTheHold() {
        var effort = state()
        _ = effort.decide(after: load(busy: 0.9), at: 2)
        #expect(effort.step == 1)
        // 0.3 busy at step 1 predicts 0.3 / 0.65 = 0.46 at step 0: calm. Five calm segments
        // come at 12 s, but the 20 s hold after the step down at 2 s keeps it until 22 s.
        let changes = run(&effort, Array(repeating: load(busy: 0.3), count: 15), from: 2)
        #expect(changes.count == 1)
        #expect(changes.first?.0 == 22)
        #expect(changes.first?.1 == .up(to: 0))
    }

    @Test func aStepUpThatWouldNotKeepUpIsNotTaken() {
        var effort = state(startingStep: 1)
        // 0.45 at superfast predicts 0.69 at veryfast: above 0.6, never calm.
        #expect(run(&effort, Array(repeating: load(busy: 0.45), count: 100)).isEmpty)
        #expect(effort.step == 1)
    }

    @Test func aCalmStreakIsBrokenByOneBusySegment() {
        var effort = state(startingStep: 1)
        var loads = Array(repeating: load(busy: 0.3), count: 4)
        loads.append(load(busy: 0.45)) // predicts 0.69 above: not calm, streak restarts
        loads += Array(repeating: load(busy: 0.3), count: 4)
        #expect(run(&effort, loads, from: 100).isEmpty)
        #expect(effort.decide(after: load(busy: 0.3), at: 200) == .up(to: 0))
    }

    @Test func aRungThatFlapsWaitsLongerEachTime() {
        var effort = state()
        var now = 0.0
        var holds: [Double] = []
        for _ in 0..<6 {
            now += 2
            #expect(effort.decide(after: load(busy: 0.95), at: now) == .down(to: 1))
            holds.append(effort.currentHold)
            // Calm until it steps up again.
            var upAt: Double?
            while upAt == nil {
                now += 2
                if effort.decide(after: load(busy: 0.3), at: now) == .up(to: 0) { upAt = now }
            }
        }
        // The first down comes before any up: 20 s; each later down within the hold doubles it, to 320 s.
        #expect(holds == [20, 40, 80, 160, 320, 320])
    }

    @Test func aStepUpThatHoldsResetsTheHold() {
        var effort = state()
        _ = effort.decide(after: load(busy: 0.95), at: 2)
        var now = 2.0
        while effort.step > 0 { now += 2; _ = effort.decide(after: load(busy: 0.3), at: now) }
        _ = effort.decide(after: load(busy: 0.95), at: now + 2) // flap: hold doubles
        #expect(effort.currentHold == 40)
        while effort.step > 0 { now += 2; _ = effort.decide(after: load(busy: 0.3), at: now) }
        // Calm for longer than the maximum hold after that up step: back to 20 s.
        let upAt = now
        while now < upAt + 330 { now += 2; _ = effort.decide(after: load(busy: 0.3), at: now) }
        _ = effort.decide(after: load(busy: 0.95), at: now + 2)
        #expect(effort.currentHold == 20)
    }

    @Test func startsWhereTheCapacityPlanSaysAndClimbsWhenThereIsRoom() {
        var effort = state(startingStep: 3)
        let changes = run(&effort, Array(repeating: load(busy: 0.2), count: 40))
        #expect(changes.map(\.1) == [.up(to: 2), .up(to: 1), .up(to: 0)])
        // No down yet: the first up waits only for the calm streak.
        #expect(changes.map(\.0) == [10, 20, 30])
    }

    @Test func aStartingStepOutOfRangeIsClamped() {
        #expect(state(startingStep: 9).step == 3)
        #expect(state(startingStep: -1).step == 0)
    }
}
