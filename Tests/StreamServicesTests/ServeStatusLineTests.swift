import PipelineCore
import StreamServices
import Testing

/// One stream's part of `serve`'s status line: what an operator reads at a glance, and the
/// trouble it shows only when there is some.
@Suite struct ServeStatusLineTests {
    static func stats(_ change: (inout PipelineStatistics) -> Void = { _ in }) -> PipelineStatistics {
        var stats = PipelineStatistics()
        stats.mediaTime = 125.5
        stats.segments = 62
        stats.bytesWritten = 15_687_500
        change(&stats)
        return stats
    }

    @Test(arguments: [
        ("healthy", stats(), 125.5, [], "media=00:02:05.50 segments=62 speed=1.00x bitrate=1000.0kbit/s state=live"),
        ("behind", stats(), 251, [], "media=00:02:05.50 segments=62 speed=0.50x bitrate=1000.0kbit/s state=live"),
        ("corrupt input", stats { $0.corruptPackets = 3 }, 125.5, [], "media=00:02:05.50 segments=62 speed=1.00x bitrate=1000.0kbit/s state=live corrupt=3"),
        ("effort stepped down", stats(), 125.5, [("720p", "superfast"), ("360p", "ultrafast")],
         "media=00:02:05.50 segments=62 speed=1.00x bitrate=1000.0kbit/s state=live effort=720p:superfast,360p:ultrafast"),
        ("slow variant", stats { $0.framesDroppedBySlowVariants = 7 }, 125.5, [], "media=00:02:05.50 segments=62 speed=1.00x bitrate=1000.0kbit/s state=live slow-variant-drops=7"),
    ] as [(String, PipelineStatistics, Double, [(variant: String, name: String)], String)])
    func thePartSaysWhatAnOperatorNeeds(name: String, stats: PipelineStatistics, wall: Double, effort: [(variant: String, name: String)], expected: String) {
        #expect(ServeStatusLine.part(stats, phase: "live", wall: wall, effort: effort) == expected, "\(name)")
    }

    /// Before anything is encoded, or before any time has passed, nothing is divided by zero.
    @Test func nothingEncodedYetIsZeroNotNaN() {
        #expect(ServeStatusLine.part(PipelineStatistics(), phase: "starting", wall: 0)
                == "media=00:00:00.00 segments=0 speed=0.00x bitrate=0.0kbit/s state=starting")
    }
}
