import EncoderEffort
import Testing

/// Whole rungs given up and taken back, on plain reports and a clock that is a number.
@Suite struct RungSheddingTests {
    static let ladders = [
        RungShedding.Ladder(stream: "cam1", rungs: ["720p", "540p", "360p"], expectedCost: ["720p": 0.3, "540p": 0.2, "360p": 0.1]),
        RungShedding.Ladder(stream: "cam2", rungs: ["720p", "540p", "360p"], expectedCost: ["720p": 0.35, "540p": 0.2, "360p": 0.1]),
    ]

    func report(_ stream: String, _ variant: String, cheapest: Bool = true, busy: Double = 0.5, dropped: Int = 0, backlog: Int = 0) -> RungShedding.Report {
        .init(rung: .init(stream: stream, variant: variant), atCheapestStep: cheapest,
              load: SegmentLoad(mediaSeconds: 2, busySeconds: busy * 2, backlogFrames: backlog, droppedFrames: dropped))
    }

    @Test func aRungStillDroppingAtItsCheapestStepShedsTheCostliestBestRung() {
        var shedding = RungShedding(ladders: Self.ladders, available: 1.6, now: 0)
        #expect(shedding.report(report("cam1", "360p", dropped: 4), now: 2) == nil, "one segment is not a trend")
        let decision = shedding.report(report("cam1", "360p", dropped: 3), now: 4)
        guard case let .shed(rung, why) = decision else { Issue.record("\(String(describing: decision))"); return }
        #expect(rung == .init(stream: "cam2", variant: "720p"), "the costliest best rung of any stream, not the one that complained")
        #expect(why.contains("cam1/360p fell behind at its cheapest effort step (3 frames dropped"))
        #expect(shedding.isShed(.init(stream: "cam2", variant: "720p")))
    }

    @Test func effortStepsComeFirst() {
        var shedding = RungShedding(ladders: Self.ladders, available: 1.6, now: 0)
        for t in stride(from: 2.0, through: 20, by: 2) {
            #expect(shedding.report(report("cam1", "720p", cheapest: false, busy: 1.3, dropped: 10, backlog: 20), now: t) == nil)
        }
    }

    @Test func oneChangeAtATimeAndTheLastRungStays() {
        var shedding = RungShedding(ladders: [Self.ladders[0]], available: 1.6, now: 0)
        var decisions: [RungShedding.Decision] = []
        for t in stride(from: 2.0, through: 60, by: 2) {
            if let decision = shedding.report(report("cam1", "360p", busy: 1.2, backlog: 9), now: t) { decisions.append(decision) }
        }
        #expect(decisions.count == 2, "720p, then 540p, then nothing: 360p is cam1's last rung")
        #expect(shedding.shed.map(\.variant) == ["720p", "540p"])
    }

    @Test func aRungComesBackWhenThereIsRoomAndCalm() {
        var shedding = RungShedding(ladders: Self.ladders, available: 1.2, shed: [.init(stream: "cam1", variant: "720p")], now: 0)
        // Busy: no room for 0.3 more (0.82 + 0.3 > 0.85 x 1.2 = 1.02; a rung counts at most its
        // cheapest step's cost).
        var t = 0.0
        while t < 40 {
            t += 2
            for (stream, variant) in [("cam1", "540p"), ("cam1", "360p"), ("cam2", "720p"), ("cam2", "540p"), ("cam2", "360p")] {
                #expect(shedding.report(report(stream, variant, busy: 0.22), now: t) == nil)
            }
        }
        // Room: the kept rungs need 0.65 cores.
        var restored: RungShedding.Decision?
        while t < 80 && restored == nil {
            t += 2
            for (stream, variant) in [("cam1", "540p"), ("cam1", "360p"), ("cam2", "720p"), ("cam2", "540p"), ("cam2", "360p")] where restored == nil {
                restored = shedding.report(report(stream, variant, busy: 0.15), now: t)
            }
        }
        guard case let .restore(rung, _) = restored else { Issue.record("not restored"); return }
        #expect(rung == .init(stream: "cam1", variant: "720p"))
        #expect(shedding.shed.isEmpty)
    }

    @Test func troubleRestartsTheCalm() {
        var shedding = RungShedding(ladders: Self.ladders, available: 4, shed: [.init(stream: "cam1", variant: "720p")], now: 0)
        #expect(shedding.report(report("cam2", "720p", cheapest: false, busy: 0.9, dropped: 2), now: 25) == nil)
        #expect(shedding.report(report("cam2", "720p", busy: 0.1), now: 40) == nil, "15 s after frames were dropped")
        #expect(shedding.report(report("cam2", "720p", busy: 0.1), now: 56) != nil)
    }
}

extension RungSheddingTests {
    /// Kept rungs that stepped their effort back up while a rung was shed count at their
    /// cheapest step: the shed rung comes back first, and they step down again if they must.
    @Test func effortTakenBackUpDoesNotKeepARungOut() {
        var shedding = RungShedding(ladders: Self.ladders, available: 1.6, shed: [.init(stream: "cam1", variant: "720p")], now: 0)
        var restored: RungShedding.Decision?
        var t = 0.0
        while t < 80 && restored == nil {
            t += 2
            for (stream, variant) in [("cam1", "540p"), ("cam1", "360p"), ("cam2", "720p"), ("cam2", "540p"), ("cam2", "360p")] where restored == nil {
                // At their configured effort they measure 1.5 cores: no room at that effort.
                restored = shedding.report(report(stream, variant, cheapest: false, busy: 0.3), now: t)
            }
        }
        #expect(restored != nil)
    }
}

extension RungSheddingTests {
    /// Shed, back, shed again: the second return waits twice as long for calm, and the first
    /// report after a return (the segment it was shed in) is not read.
    @Test func aRungThatComesBackAndIsShedAgainWaitsLonger() {
        let rung = RungShedding.Rung(stream: "cam1", variant: "720p")
        var shedding = RungShedding(ladders: [Self.ladders[0]], available: 4, shed: [rung], now: 0)
        var t = 30.0
        guard case .restore = shedding.report(report("cam1", "360p", busy: 0.1), now: t) else { Issue.record("not back after 30 s"); return }
        #expect(shedding.report(report("cam1", "720p", busy: 2, dropped: 30, backlog: 30), now: t + 2) == nil, "its first report is stale")
        t += 10
        _ = shedding.report(report("cam1", "720p", busy: 1.2, dropped: 5), now: t)
        guard case .shed(rung, _)? = shedding.report(report("cam1", "720p", busy: 1.2, dropped: 5), now: t + 2) else { Issue.record("not shed again"); return }
        #expect(shedding.calm(for: rung) == 60)
        #expect(shedding.report(report("cam1", "360p", busy: 0.1), now: t + 2 + 31) == nil, "30 s of calm is not enough now")
        #expect(shedding.report(report("cam1", "360p", busy: 0.1), now: t + 2 + 61) != nil)
    }
}
