import MPEGTS
import StreamPushing
import Testing

/// A pushed variant's declared CODECS against what its segments carry, as rows (issue 33).
@Suite struct DeclaredCodecsTests {
    static func carrying(video: Int = PushedSegmentCheck.h264, audio: [Int] = [0x0F]) -> PushedSegmentCheck.Inspection {
        PushedSegmentCheck.Inspection(videoPID: 256, duration: 2, firstPTS: 0, keyframeEnd: 188, videoStreamType: video, audioStreamTypes: audio)
    }

    @Test(arguments: [
        (["avc1.64001f", "mp4a.40.2"], carrying()),
        (["avc3.42c00d", "mp4a.40.5"], carrying(audio: [0x11])),
        (["AVC1.4D401F"], carrying(audio: [])),
        (["hvc1.1.6.L93.B0", "mp4a.40.2"], carrying(video: PushedSegmentCheck.hevc)),
        (["hev1.1.6.L93.B0", "ac-3"], carrying(video: PushedSegmentCheck.hevc, audio: [0x81])),
        (["avc1.64001f", "ec-3", "mp4a.40.2"], carrying(audio: [0x87, 0x0F])),
        (["avc1.64001f", "mp4a.40.34"], carrying(audio: [0x03])),
        // ffmpeg's HLS muxer writes mp4a.40.33 for MP2 (PMT stream type 0x03 or 0x04).
        (["avc1.64001f", "mp4a.40.33"], carrying(audio: [0x04])),
        (["avc1.64001f", "avc1.42c00d", "mp4a.40.2"], carrying()),
    ] as [([String], PushedSegmentCheck.Inspection)])
    func whatTheSegmentsCarryIsTaken(codecs: [String], inspection: PushedSegmentCheck.Inspection) {
        #expect(DeclaredCodecs.mismatch(declared: codecs, inspection: inspection) == nil, "\(codecs)")
    }

    @Test(arguments: [
        (["hvc1.1.6.L93.B0", "mp4a.40.2"], carrying(), "declares AAC and HEVC, but the segments carry AAC and H.264"),
        (["avc1.64001f", "mp4a.40.2"], carrying(audio: []), "declares AAC and H.264, but the segments carry H.264"),
        (["avc1.64001f"], carrying(), "declares H.264, but the segments carry AAC and H.264"),
        (["avc1.64001f", "ac-3"], carrying(), "declares AC-3 and H.264, but the segments carry AAC and H.264"),
        (["mp4a.40.2"], carrying(), "declares AAC, but"),
        (["vp09.00.10.08", "mp4a.40.2"], carrying(), "'vp09.00.10.08', which MPEG-TS segments do not carry"),
        (["av01.0.04M.08"], carrying(audio: []), "which MPEG-TS segments do not carry"),
        ([], carrying(audio: []), "declares nothing, but the segments carry H.264"),
    ] as [([String], PushedSegmentCheck.Inspection, String)])
    func aDeclarationTheSegmentsCannotCarryIsRefused(codecs: [String], inspection: PushedSegmentCheck.Inspection, reason: String) {
        let mismatch = DeclaredCodecs.mismatch(declared: codecs, inspection: inspection)
        #expect(mismatch?.contains(reason) == true, "\(mismatch ?? "taken")")
    }
}
