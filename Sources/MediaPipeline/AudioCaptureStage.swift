import CFFmpeg
import Foundation
import Logging
import PipelineCore
import SidelineCore
import Synchronization

/// Reads a separate audio input (`audio_input`, e.g. an ALSA device next to a V4L2 camera) on
/// a thread of its own, encodes it to AAC once, and hands the packets to every variant.
///
/// The two inputs have unrelated clocks, so the audio is placed on the output timeline by the
/// wall clock: the first audio frame goes where its arrival falls relative to the arrival of
/// output frame 0 of the video, and later frames follow by their own timestamps. A/V sync is
/// therefore as good as the two devices' buffering delays are alike (tens of milliseconds for
/// capture devices).
final class AudioCaptureStage {
    let input: AudioInput
    let encoder: AudioEncoder
    private let workers: [VariantWorker]
    private let feedPolicy: FeedPolicy
    private let gate: ShedGate
    private let logger: Logger
    private let deadline: InterruptDeadline
    /// When the pipeline's first output frame of video was captured; set by the input thread.
    let videoOrigin = Mutex<ContinuousClock.Instant?>(nil)
    /// Output time of that frame (seconds): where the pipeline's run starts on the timeline.
    /// Set (`InputStage.begin(atSegment:)`) before the capture thread starts.
    var timelineStart = 0.0
    private let stopRequested = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?

    init(input: AudioInput, encoder: AudioEncoder, workers: [VariantWorker], feedPolicy: FeedPolicy, gate: ShedGate, deadline: InterruptDeadline, logger: Logger) {
        self.gate = gate
        self.input = input
        self.encoder = encoder
        self.workers = workers
        self.feedPolicy = feedPolicy
        self.deadline = deadline
        self.logger = logger
    }

    /// Starts the capture thread. Called by the input thread.
    func start() {
        let box = StageHandoff.Unchecked(self)
        let thread = Thread {
            box.value.run()
            box.value.done.signal()
        }
        thread.name = "sideline.audio-input"
        thread.start()
        self.thread = thread
    }

    /// Stops reading, encodes what is left, and returns once the thread has finished.
    func stopAndWait() {
        guard thread != nil else { return }
        stopRequested.store(true, ordering: .relaxed)
        deadline.cancel()
        done.wait()
    }

    private func run() {
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        // Where the first audio frame arrived, relative to video frame 0, and its timestamp.
        var anchor: (outputTime: Double, stamp: Double)?
        do {
            while !stopRequested.load(ordering: .relaxed) {
                guard try input.container.read(into: packet!) else { break }
                defer { av_packet_unref(packet) }
                try input.audio.decode(packet, frame: frame!) { decoded in
                    guard let stamp = decoded.timestampSeconds(timeBase: input.audio.timeBase),
                          let origin = videoOrigin.withLock({ $0 }) else { return }
                    if anchor == nil {
                        anchor = (timelineStart + origin.duration(to: .now).inSeconds, stamp)
                    }
                    let outputTime = anchor!.outputTime + (stamp - anchor!.stamp)
                    try encoder.push(decoded, outputTime: outputTime) { workers.fanOut(audio: $0, policy: feedPolicy, leavingOut: gate.leftOutOfAudio()) }
                }
            }
        } catch {
            // The video goes on; its segments have no new sound until the stream is restarted.
            logger.error("audio input failed; the stream continues without its sound", metadata: ["audio-input": "\(input.container.input)", "error": "\(error)"])
        }
        do {
            try encoder.drain { workers.fanOut(audio: $0, policy: feedPolicy, leavingOut: gate.leftOutOfAudio()) }
        } catch {
            logger.warning("audio encoder drain failed", metadata: ["error": "\(error)"])
        }
    }
}
