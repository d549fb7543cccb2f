import EncoderEffort
import Foundation
import Logging
import MediaPipeline
import SidelineConfig
import SidelineCore
import Synchronization

/// The box's whole-rung shedding while it runs: every live stream's rungs report each segment's
/// load here, `RungShedding` (pure) decides over all of them at once, and this carries the
/// decision out: the stream's pipeline feeds the rung nothing (`ShedControl`), and its
/// publisher takes it out of the master (or back in). Effort steps come first: a rung is shed
/// only when one still falls behind at its cheapest step.
public final class LoadShedding: Sendable {
    private let rule: Mutex<RungShedding>
    private let streams = Mutex<[String: (publisher: StreamPublisher, control: ShedControl)]>([:])
    private let clock: @Sendable () -> Double
    private let logger: Logger

    /// `plans`: the streams this box encodes, with what the calibration shed at start; `costs`:
    /// the kept calibration, for what a shed rung will cost when it comes back.
    public init(plans: [ServePlan], costs: CostTable, cores: Int = ProcessInfo.processInfo.activeProcessorCount,
                clock: @escaping @Sendable () -> Double = MonotonicClock.seconds, logger: Logger) {
        let ladders = plans.map { plan in
            RungShedding.Ladder(stream: plan.stream.name, rungs: plan.stream.video.ladder.map(\.name),
                                expectedCost: Dictionary(plan.stream.video.ladder.compactMap { rung in
                                    EffortSteps.steps(for: rung).last.flatMap { costs.cost(rung, $0) }.map { (rung.name, $0) }
                                }) { first, _ in first }, fixedCost: costs.decode)
        }
        let shed = plans.flatMap { plan in plan.shed.map { RungShedding.Rung(stream: plan.stream.name, variant: $0) } }
        rule = Mutex(RungShedding(ladders: ladders, available: Double(cores) * CapacityPlan.encodingShare, shed: shed, now: clock()))
        self.clock = clock
        self.logger = logger
    }

    /// Whole rungs given up while the box runs when effort steps are not enough, and taken back
    /// when there is room, for the streams `services` encode (live: a file encoded as fast as
    /// possible never falls behind), with the kept calibration.
    public static func start(for services: [PipelineService], logger: Logger) {
        let shedding = LoadShedding(plans: services.map(\.plan), costs: EncodingCapacity.keptTable(), logger: logger)
        for service in services { shedding.attach(service.publisher, control: service.plan.shedding) }
    }

    /// Takes `publisher`'s load reports; `control` is its stream's pipelines' shed set.
    public func attach(_ publisher: StreamPublisher, control: ShedControl) {
        let stream = publisher.streamName
        streams.withLock { $0[stream] = (publisher, control) }
        // Held for the process's life: the publisher keeps this alive, as it keeps reporting.
        publisher.reportLoads { variant, cheapest, load in
            self.report(.init(rung: .init(stream: stream, variant: variant), atCheapestStep: cheapest, load: load))
        }
    }

    func report(_ report: RungShedding.Report) {
        guard let decision = rule.withLock({ $0.report(report, now: clock()) }) else { return }
        switch decision {
        case let .shed(rung, why):
            guard let target = streams.withLock({ $0[rung.stream] }) else { return }
            // The publisher first: the rung leaves the master before its frames stop.
            target.publisher.shed(rung.variant, why: why)
            target.control.set(rung.variant, shed: true)
        case let .restore(rung, why):
            guard let target = streams.withLock({ $0[rung.stream] }) else { return }
            target.control.set(rung.variant, shed: false)
            target.publisher.restore(rung.variant, why: why)
        }
    }
}
