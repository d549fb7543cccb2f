/// How often a variant's encoder says it is making pictures (`PipelineEvent.progress`) while it
/// encodes: often enough that a server waiting `EncoderLiveness.defaultStalledAfter` (a second)
/// for a late encoder misses four reports before it calls it stalled, seldom enough to cost
/// nothing (four events a second per rung against thirty frames).
public enum EncoderProgress {
    public static let interval = 0.25
}
