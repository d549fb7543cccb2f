import CFFmpeg
import EncoderEffort
import Foundation
@testable import MediaPipeline
import SidelineCore
import Testing

/// How many frames libx264 holds before a frame comes out (issue 34, item 4: a frame must leave
/// the encoder within one part of entering it). Counted, not timed: for each frame sent, which
/// packets came back; the delay of a packet is the frames sent after its own. Deterministic in
/// frames for a given preset, lookahead, B-frames and thread count, whatever the machine.
@Suite struct EncoderDelayTests {
    /// The shipped ladder's settings (Config/sideline.yaml: veryfast, lookahead 5) at 180p, so
    /// the encode is quick; the delay depends on the settings, not the size.
    static let shipped = Rung(name: "180p", width: 320, height: 180, bitrate: 250_000, maxrate: 300_000, bufsize: 500_000, preset: "veryfast", profile: "main", lookahead: 5)

    /// The largest delay, in frames, over `count` frames of a gray picture, per effort step.
    static func delays(rung: Rung, threads: Int, framesPerPart: Int? = nil, count: Int = 90) throws -> [(step: String, frames: Int)] {
        let clock = SegmentClock(frameRate: FrameRate(30), segmentDuration: 2)
        return try EffortSteps.steps(for: rung).map { step in
            let encoder = try VideoEncoder(spec: rung, clock: clock, step: step, threads: threads, framesPerPart: framesPerPart)
            var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
            defer { av_frame_free(&frame) }
            let picture = try #require(frame)
            picture.pointee.width = Int32(rung.width)
            picture.pointee.height = Int32(rung.height)
            picture.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            #expect(av_frame_get_buffer(picture, 0) == 0)
            var most = 0
            for index in 0..<count {
                #expect(av_frame_make_writable(picture) == 0)
                // A moving ramp, so the encoder has something to predict.
                let planes = [(picture.pointee.data.0, picture.pointee.linesize.0, rung.height),
                              (picture.pointee.data.1, picture.pointee.linesize.1, rung.height / 2),
                              (picture.pointee.data.2, picture.pointee.linesize.2, rung.height / 2)]
                for (plane, (data, stride, height)) in planes.enumerated() {
                    let bytes = try #require(data)
                    memset(bytes, Int32((index * 3 + plane * 40) & 0xFF), Int(stride) * height)
                }
                picture.pointee.pts = Int64(index)
                picture.pointee.pict_type = clock.startsSegment(frame: Int64(index)) ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
                try encoder.encode(picture) { packet in most = max(most, index - Int(packet.pointee.pts)) }
            }
            try encoder.encode(nil) { _ in }
            return (step.name, most)
        }
    }

    /// Measured 2026-11-29: 8 frames with one thread per rung (what a ladder of two or more
    /// rungs gets on 2 cores: `CapacityPlan.threadsPerRung`), 14 with x264's own thread count
    /// (frame threads add their own), at every effort step: within a part of 0.5 s (15 frames
    /// at 30 fps), not within one of 0.33 s.
    /// With parts (the default 0.2 s: 6 frames at 30 fps, 5 at 25), whatever the thread
    /// count: every frame out within one part. Measured 2026-11-29 before `partParameters`:
    /// 6 frames with one thread (B-frames off alone), 9 with x264's own threads.
    @Test(arguments: [5, 6, 10, 15])
    func withPartsEveryFrameLeavesWithinOnePart(framesPerPart: Int) throws {
        for threads in [1, 0] {
            let measured = try Self.delays(rung: Self.shipped, threads: threads, framesPerPart: framesPerPart)
            print("encoder delay with parts of \(framesPerPart) frames, threads \(threads == 0 ? "x264's choice" : "1"): "
                + measured.map { "\($0.step) \($0.frames) frames" }.joined(separator: ", "))
            for (step, frames) in measured {
                #expect(frames < framesPerPart, "\(step), threads \(threads): a frame held \(frames) frames, a part is \(framesPerPart)")
            }
        }
    }

    /// The quality benchmark encodes with the settings the encoder really uses with parts.
    @Test func theQualityBenchmarkEncodesWithTheseSettings() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/bench/encoding/part_quality.sh")
        let text = try String(contentsOf: script, encoding: .utf8)
        #expect(text.contains("parts=\"scenecut=0:open-gop=0:" + VideoEncoder.partParameters(framesPerPart: 6, lookahead: 5) + "\""))
    }

    @Test func theShippedSettingsLetEveryFrameOutWithinAPartOfHalfASecond() throws {
        for threads in [1, 0] {
            let measured = try Self.delays(rung: Self.shipped, threads: threads)
            print("encoder delay, veryfast ladder (lookahead 5), threads \(threads == 0 ? "x264's choice" : "1"): "
                + measured.map { "\($0.step) \($0.frames) frames" }.joined(separator: ", "))
            #expect(measured.count == EffortSteps.steps(for: Self.shipped).count)
            for (step, frames) in measured {
                #expect((0..<15).contains(frames), "\(step), threads \(threads): a frame held \(frames) frames, a part of 0.5 s is 15")
            }
        }
    }
}
