import CFFmpeg
import EncoderEffort
import Foundation
import PipelineCore
import SidelineCore

/// Measures what encoding costs on this machine (`CostTable`): decodes a few seconds of an
/// input once, then scales and encodes them with each rung at each of its effort steps, one
/// x264 thread each, and reads the calling thread's own CPU time around every encode. CPU
/// time, not wall time: a busy machine makes the measurement take longer, not cost more.
///
/// Blocking, seconds long: call it on a thread you own, before the pipelines start.
public enum EncoderCalibration {
    public static func measure(input: String, rungs: [Rung], frameRate: FrameRate, segmentDuration: Double, seconds: Double,
                               machine: String) throws(PipelineError) -> CostTable {
        av_log_set_level(AV_LOG_ERROR)
        let deadline = InterruptDeadline(timeout: .seconds(10))
        let source = try MediaInput(input: input, timeout: 10, deadline: deadline, frameRate: frameRate, withAudio: false)
        let wanted = max(1, Int((seconds * frameRate.value).rounded()))
        var frames: [OwnedFrame] = []
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        // The decoder's frame threads do its work: the process's CPU time, not this thread's
        // (nothing else of the process runs while it calibrates).
        let decodeStart = CPUTime.process()
        func keep(_ decoded: UnsafeMutablePointer<AVFrame>) {
            if frames.count < wanted, let owned = OwnedFrame(cloning: decoded) { frames.append(owned) }
        }
        while frames.count < wanted, try source.read(into: packet!) {
            defer { av_packet_unref(packet) }
            guard packet!.pointee.stream_index == source.video.streamIndex else { continue }
            source.video.decode(packet, frame: frame!, keep)
        }
        // A clip shorter than `seconds`: what the decoder still holds.
        if frames.count < wanted { source.video.decode(nil, frame: frame!, keep) }
        guard !frames.isEmpty else { throw .internalFailure("calibration: \(input) gave no video frame to measure with") }
        let media = Double(frames.count) / frameRate.value
        var table = CostTable(machine: machine, decode: (CPUTime.process() - decodeStart) / media)
        let clock = SegmentClock(frameRate: frameRate, segmentDuration: segmentDuration)
        for rung in rungs {
            for step in EffortSteps.steps(for: rung) where table.cost(rung, step) == nil {
                table.entries[CostTable.key(rung, step)] = try encodeCost(of: frames, rung: rung, step: step, clock: clock) / media
            }
        }
        return table
    }

    /// CPU seconds this thread spends scaling and encoding `frames` at `step`.
    private static func encodeCost(of frames: [OwnedFrame], rung: Rung, step: EffortStep, clock: SegmentClock) throws(PipelineError) -> Double {
        let encoder = try VideoEncoder(spec: rung, clock: clock, step: step, threads: 1)
        let scaler = VideoScaler(width: rung.width, height: rung.height)
        let start = CPUTime.thread()
        do {
            for (index, owned) in frames.enumerated() {
                guard let source = owned.pointer else { continue }
                var scaled: UnsafeMutablePointer<AVFrame>? = try scaler.scale(source)
                defer { av_frame_free(&scaled) }
                scaled!.pointee.pts = Int64(index)
                scaled!.pointee.pict_type = clock.startsSegment(frame: Int64(index)) ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
                try encoder.encode(scaled) { _ in }
            }
            try encoder.encode(nil) { _ in }
        } catch {
            throw .encoderSetupFailed(variant: rung.name, reason: "calibration encode at \(step.name) failed: \(error)")
        }
        return CPUTime.thread() - start
    }

    /// What identifies this machine for a kept table: CPU model and core count. A table is
    /// measured again on another CPU.
    public static var machine: String {
        let model = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        return "\(model) x\(ProcessInfo.processInfo.activeProcessorCount)"
    }
}
