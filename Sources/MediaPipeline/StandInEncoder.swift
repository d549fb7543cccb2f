import CFFmpeg
import EncoderEffort
import Foundation
import HLSPlaylist
import PipelineCore
import SidelineCore

/// Encodes a variant's stand-in segment: the "technical difficulty" card with silence,
/// exactly one slot long, through the variant's own scaler, x264 settings, AAC encoder and
/// TS muxer, so a decoder that switches to it sees the same format as the variant's own
/// segments. It is encoded once, at media time 0 (slot 0); the publisher restamps a copy
/// for each slot it fills (`TransportStreamRestamp`).
///
/// Runs on the calling thread and blocks for a fraction of a second per rung (measured:
/// see Docs/benchmarks.md); call it before serving, on a thread of your own.
public enum StandInEncoder {
    public struct Result: Sendable {
        public let segment: EncodedSegment
        public let format: VariantFormat
    }

    /// `framesPerPart`: the fewest frames of a Low-Latency part, when the stream cuts parts: the
    /// variant's own encoder then runs without B-frames and with slice threads
    /// (`VideoEncoder.partParameters`), and so does its stand-in, so the two share one SPS, PPS
    /// and decode delay.
    public static func encode(spec: Rung, frameRate: FrameRate, segmentDuration: Double, audio audioSpec: AudioSpec?,
                              framesPerPart: Int? = nil) throws(PipelineError) -> Result {
        let clock = SegmentClock(frameRate: frameRate, segmentDuration: segmentDuration)
        // The shortest slot's frames, so a restamped copy never runs into the next slot.
        let frames = clock.minimumFramesPerSegment
        let input = try MediaInput(input: "stand-in card", kind: .standInCard(width: spec.width, height: spec.height), timeout: 10,
                                   deadline: InterruptDeadline(timeout: .seconds(10)), frameRate: frameRate, withAudio: audioSpec != nil)
        let scaler = VideoScaler(width: spec.width, height: spec.height)
        let encoder = try VideoEncoder(spec: spec, clock: clock, framesPerPart: framesPerPart)
        let audio = try audioSpec.map { spec throws(PipelineError) in try AudioEncoder(spec: spec) }
        var result: EncodedSegment?
        var format: VariantFormat?
        let muxer: SegmentMuxer
        do {
            muxer = try SegmentMuxer(video: encoder, audio: audio, clock: clock) { result = $0 }
        } catch {
            throw .encoderSetupFailed(variant: spec.name, reason: error.description)
        }
        // Audio packets wholly inside the slot, so the stand-in never overlaps the next one.
        let audioEnd = Int64(segmentDuration * Double(audioSpec?.sampleRate ?? 48000))
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        var videoFrames: Int64 = 0
        var audioDone = audio == nil
        let covering = H264Profile.covering(spec)
        func handle(_ encoded: UnsafeMutablePointer<AVPacket>) throws {
            if format == nil, encoded.pointee.flags & AV_PKT_FLAG_KEY != 0 {
                let buffer = UnsafeBufferPointer(start: encoded.pointee.data, count: Int(encoded.pointee.size))
                if let sps = AnnexB.nalUnits(in: buffer).first(where: { ($0.first ?? 0) & 0x1F == 7 }), let video = AVCCodecString.make(fromSPS: sps, declaringProfile: covering.idc, constraintFlags: covering.constraintFlags) {
                    format = VariantFormat(codecs: audio != nil ? [video, AVCCodecString.aacLC] : [video], width: spec.width, height: spec.height, frameRate: frameRate.value)
                }
            }
            try muxer.addVideo(encoded, captured: Date(timeIntervalSince1970: 0))
        }
        do {
            while videoFrames < frames || !audioDone {
                guard try input.read(into: packet!) else { break }
                defer { av_packet_unref(packet) }
                if packet!.pointee.stream_index == input.video.streamIndex, videoFrames < frames {
                    _ = try input.video.decode(packet, frame: frame!) { decoded in
                        guard videoFrames < frames else { return }
                        var scaled: UnsafeMutablePointer<AVFrame>? = try scaler.scale(decoded)
                        defer { av_frame_free(&scaled) }
                        scaled!.pointee.pts = videoFrames
                        scaled!.pointee.pict_type = videoFrames == 0 ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
                        videoFrames += 1
                        try encoder.encode(scaled) { try handle($0) }
                    }
                } else if let audio, let decoder = input.audio, packet!.pointee.stream_index == decoder.streamIndex, !audioDone {
                    _ = try decoder.decode(packet, frame: frame!) { decoded in
                        guard let stamp = decoded.timestampSeconds(timeBase: decoder.timeBase), !audioDone else { return }
                        try audio.push(decoded, outputTime: stamp) { encoded in
                            let end = encoded.pointee.pts + max(encoded.pointee.duration, 1024)
                            if encoded.pointee.pts >= 0 && end <= audioEnd, let owned = OwnedPacket(cloning: encoded) { muxer.addAudio(owned) }
                            if end >= audioEnd { audioDone = true }
                        }
                    }
                }
            }
            try encoder.encode(nil) { try handle($0) }
            try muxer.finish()
        } catch {
            throw .encoderSetupFailed(variant: spec.name, reason: "the stand-in card could not be encoded: \(error)")
        }
        guard let result, let format, videoFrames == frames else {
            throw .encoderSetupFailed(variant: spec.name, reason: "the stand-in card produced \(videoFrames) of \(frames) frames")
        }
        return Result(segment: result, format: format)
    }
}
