import OriginPolicy
import SidelineConfig
import SidelineCore
import StreamServices
import Testing

/// The status table `serve` answers with: the stale rule counts the largest late grace of the
/// streams it serves, so no stream's stand-in listed on time follows a stale 404.
@Suite struct StatusPolicyServingTests {
    func stream(_ name: String, lateGrace: Double) -> StreamSettings {
        var settings = StreamSettings(name: name, input: "udp://127.0.0.1:5000", loop: false, inputTimeout: 5, video: SidelineConfiguration.defaultStream.video)
        settings.lateGrace = lateGrace
        return settings
    }

    @Test func theLargestLateGraceOfTheServedStreamsCounts() {
        #expect(StatusPolicy(serving: [stream("a", lateGrace: 1), stream("b", lateGrace: 2.5)]).lateGrace == 2.5)
        #expect(StatusPolicy(serving: [stream("a", lateGrace: 0.2)]).staleAfter(targetDuration: 2) == 3.2)
        #expect(StatusPolicy(serving: []).lateGrace == LateSegmentFill.defaultGrace)
    }
}
