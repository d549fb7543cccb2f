/// Where a wall-clock timeline's audio frames fall: on sample indices that are multiples of the
/// frame size counted from 1970 (at the output sample rate), so every angle of a set, and a
/// pushed angle encoded on a phone, cut their AAC frames at the same instants whatever moment
/// each started. Chromium places a live HLS player's 0 by where the audio of the segment it
/// joins starts: with audio frames on different phases, two angles in step by their timestamps
/// were shown 13-14 ms apart (2026-11-27, measured with the test pattern's clock). Pure.
public enum AudioFrameGrid {
    /// The first sample (output sample index, 0 at the timeline's epoch) of the run's audio: the
    /// grid point at or after `target`, the sample the first audio belongs at; the encoder
    /// leaves out the audio before it (less than one frame, so a run's sound never starts
    /// before its timeline's 0). `epochSample`: the timeline's epoch in samples since 1970, or
    /// nil when the timeline is not on the wall clock (a stream in no set), and the audio
    /// starts where it is.
    public static func start(forFirstSample target: Int64, frameSize: Int64, epochSample: Int64?) -> Int64 {
        guard let epochSample, frameSize > 0 else { return target }
        // (epochSample + start) is a multiple of frameSize; no grid where the values are absurd.
        let (absolute, overflow) = epochSample.addingReportingOverflow(target)
        guard !overflow else { return target }
        var phase = absolute % frameSize
        if phase < 0 { phase += frameSize }
        return phase == 0 ? target : target + (frameSize - phase)
    }

    /// `epoch` (seconds since 1970) in samples at `sampleRate`, rounded; nil when not finite.
    public static func epochSample(secondsSince1970 epoch: Double, sampleRate: Int) -> Int64? {
        let samples = (epoch * Double(sampleRate)).rounded()
        guard samples.isFinite, abs(samples) < 9e15 else { return nil }
        return Int64(samples)
    }
}
