import OriginPolicy
import SidelineConfig
import SidelineCore

extension StatusPolicy {
    /// The status table for the streams `serve` runs. The stale rule counts their largest
    /// `stream.late_grace` on top of 1.5 target durations, so a stand-in listed at its
    /// deadline is never preceded by a stale 404 (Docs/status-codes.md, "The grace").
    public init(serving streams: [StreamSettings]) {
        self.init(lateGrace: streams.map(\.lateGrace).max() ?? LateSegmentFill.defaultGrace)
    }
}
