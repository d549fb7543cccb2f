/// Chooses EXT-X-TARGETDURATION before the first segment exists, because RFC 8216 §6.2.1
/// forbids changing it: "The EXT-X-TARGETDURATION value in the Media Playlist MUST NOT change."
///
/// Sideline cuts each segment on the first frame at or after the boundary k x D, so a segment
/// lasts D, give or take one frame. The bound is therefore D plus one frame, rounded to the
/// nearest integer as §4.3.3.1 rounds EXTINF, and never below 1.
public enum TargetDuration {
    public static func forSegments(ofDuration segmentDuration: Double, frameRate: Double) -> Int {
        let oneFrame = frameRate > 0 ? 1.0 / frameRate : 0
        return max(1, Int((segmentDuration + oneFrame).rounded()))
    }
}
