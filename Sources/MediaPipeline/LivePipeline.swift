import CFFmpeg
import Foundation
import Logging
import PipelineCore
import SidelineCore
import Synchronization

/// One input encoded into a ladder of variants, on threads the pipeline owns: one for demux
/// and decode, one per variant for scale, encode and segmenting. Nothing here runs on Swift
/// concurrency's pool; what leaves is plain values, through `onEvent`, called on those threads.
public final class LivePipeline: Sendable {
    public let configuration: PipelineConfiguration
    private let deadline: InterruptDeadline
    /// The separate audio input's own timeouts, if there is one.
    private let audioDeadline: InterruptDeadline
    private let shared = SharedState()
    /// When each segment's input was complete; the publisher measures latency from it.
    public let timings = SegmentTimings()
    private let stage: StageHandoff
    private let done = DispatchSemaphore(value: 0)
    private let onEvent: @Sendable (PipelineEvent) -> Void
    private let logger: Logger
    /// Failures on demand (admin API drills).
    public let drills: PipelineDrills
    /// Video bit rates changed while running (`sideline push`), taken from the next frame.
    public let bitRates = BitRateControl()

    /// Opens the input and sets up every encoder, so that a bad input or setting fails here,
    /// before anything is served. Call `start()` to begin.
    public init(configuration: PipelineConfiguration, logger: Logger, drills: PipelineDrills = PipelineDrills(),
                onEvent: @escaping @Sendable (PipelineEvent) -> Void) throws(PipelineError) {
        self.configuration = configuration
        self.drills = drills
        self.logger = logger
        self.onEvent = onEvent
        av_log_set_level(AV_LOG_ERROR)
        let deadline = InterruptDeadline(timeout: .milliseconds(Int64(configuration.inputTimeout * 1000)))
        self.deadline = deadline
        let audioDeadline = InterruptDeadline(timeout: .milliseconds(Int64(configuration.inputTimeout * 1000)))
        self.audioDeadline = audioDeadline
        let input = try MediaInput(input: configuration.input, timeout: configuration.inputTimeout, deadline: deadline, frameRate: configuration.frameRate,
                                   options: configuration.inputOptions, withAudio: configuration.audioInput == nil)
        let audioInput = try configuration.audioInput.map { name throws(PipelineError) in
            try AudioInput(input: name, timeout: configuration.inputTimeout, deadline: audioDeadline, options: configuration.audioInputOptions)
        }
        for (name, unused) in [("input", input.unusedOptions), ("audio input", audioInput?.container.unusedOptions ?? [])] where !unused.isEmpty {
            logger.warning("\(name) options not recognised by libavformat for this input; check their spelling", metadata: ["options": "\(unused.joined(separator: ", "))"])
        }
        let audio = input.audio == nil && audioInput == nil ? nil : try AudioEncoder(spec: configuration.audio)
        let shared = self.shared
        let clock = configuration.clock
        let firstVariant = configuration.variants.first?.name
        // The same test InputStage makes for its feed policy: a live input cannot wait.
        let live = configuration.realtime || !input.kind.needsPacing
        let queueCapacity = FeedPolicy.queueCapacity(frameRate: configuration.frameRate)
        var workers: [VariantWorker] = []
        for spec in configuration.variants {
            let isFirst = spec.name == firstVariant
            let worker = try VariantWorker(spec: spec, keyframes: configuration.keyframes, audio: audio, logger: logger, queueCapacity: queueCapacity, effort: configuration.effort,
                                           live: live, onEvent: onEvent) { mediaTime, segmentBytes in
                shared.stats.withLock { s in
                    if isFirst {
                        // `mediaTime` is the end of the frame just encoded, on the stream's timeline.
                        let start = s.timelineStart ?? (mediaTime - clock.frameRate.time(ofFrame: 1))
                        s.timelineStart = start
                        s.mediaTime = max(s.mediaTime, mediaTime - start)
                    }
                    if let segmentBytes {
                        s.bytesWritten += Int64(segmentBytes)
                        if isFirst { s.segments += 1 }
                    }
                }
            }
            worker.simulatedEncodeDelay = configuration.simulatedEncodeDelay[spec.name] ?? 0
            worker.drills = drills
            worker.bitRates = bitRates
            workers.append(worker)
        }
        let gate = ShedGate(control: configuration.shedding)
        let capture = audioInput.map { audioInput in
            AudioCaptureStage(input: audioInput, encoder: audio!, workers: workers, feedPolicy: .forInput(live: true, capacity: workers[0].queue.capacity),
                              gate: gate, deadline: audioDeadline, logger: logger)
        }
        self.stage = StageHandoff(InputStage(
            configuration: configuration, input: input, audioEncoder: capture == nil ? audio : nil, audioCapture: capture, workers: workers, logger: logger,
            statistics: { update in shared.stats.withLock { update(&$0) } },
            isStopping: { shared.stopping.load(ordering: .relaxed) },
            timings: timings, drills: drills, stopDeadline: deadline, gate: gate, onEvent: onEvent
        ))
    }

    /// Whether the input carries audio that will be encoded.
    public var hasAudio: Bool { stage.hasAudio }

    /// Starts the threads, with the first segment at timeline slot `segment`: the stream's
    /// next free slot, so its timestamps continue the recording's instead of starting at
    /// zero. `setEpoch`: an angle of a set places every frame by when it reached the server,
    /// as seconds since the set's epoch (`SetTimeline`), not after the run's first frame. Call once.
    public func start(atSegment segment: Int = 0, setEpoch: Date? = nil) {
        guard let stage = stage.take() else { return }
        stage.begin(atSegment: segment, setEpoch: setEpoch)
        let onEvent = self.onEvent
        let shared = self.shared
        let done = self.done
        let logger = self.logger
        let workerDone = DispatchGroup()
        for worker in stage.workers {
            let box = StageHandoff.Unchecked(worker)
            workerDone.enter()
            let thread = Thread {
                box.value.run()
                workerDone.leave()
            }
            thread.name = "sideline.variant.\(worker.spec.name)"
            thread.start()
        }
        let inputBox = StageHandoff.Unchecked(stage)
        let inputThread = Thread {
            let failure = inputBox.value.run()
            if let failure {
                logger.error("input failed", metadata: ["error": "\(failure)"])
                onEvent(.inputFailed(failure))
            }
            workerDone.wait()
            onEvent(.finished(endOfStream: failure == nil || shared.stopping.load(ordering: .relaxed)))
            done.signal()
        }
        inputThread.name = "sideline.input"
        inputThread.start()
    }

    /// Asks the pipeline to finish: the input stops reading (a blocked network read is
    /// interrupted), every variant writes its last segment, then `.finished` is reported.
    public func stop() {
        shared.stopping.store(true, ordering: .relaxed)
        deadline.cancel()
        audioDeadline.cancel()
    }

    /// Blocks the calling thread until `.finished` has been reported. Not for async contexts.
    public func waitUntilFinished() {
        done.wait()
        done.signal()
    }

    /// Like `waitUntilFinished()`, but gives up after `seconds`: a pipeline that hangs inside
    /// a call that cannot be interrupted may never finish. True when it finished.
    public func waitUntilFinished(seconds: Double) -> Bool {
        guard done.wait(timeout: .now() + seconds) == .success else { return false }
        done.signal()
        return true
    }

    /// Suspends until `.finished` has been reported. The blocking wait happens on a thread of
    /// its own, so no thread of Swift concurrency's pool is held.
    public func finished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                self.waitUntilFinished()
                continuation.resume()
            }.start()
        }
    }

    public var statistics: PipelineStatistics { shared.stats.withLock { $0 } }
}

/// State the pipeline's threads share with its owner; a class so closures can capture it.
private final class SharedState: Sendable {
    let stopping = Atomic<Bool>(false)
    let stats = Mutex(PipelineStatistics())
}

/// Hands the FFmpeg-owning stage from the thread that built it to the thread that runs it.
///
/// Why `@unchecked Sendable` is sound: the stage is created in `LivePipeline.init`, taken out
/// exactly once under the lock in `start()`, and from then on touched only by the input thread
/// (and each worker only by its own thread). No two threads ever use the same FFmpeg object.
final class StageHandoff: @unchecked Sendable {
    private let lock = NSLock()
    private var stage: InputStage?
    let hasAudio: Bool

    init(_ stage: InputStage) {
        self.stage = stage
        self.hasAudio = stage.audioEncoder != nil || stage.audioCapture != nil
    }

    func take() -> InputStage? {
        lock.lock()
        defer { lock.unlock() }
        let taken = stage
        stage = nil
        return taken
    }

    /// Moves one value into the closure of the thread that becomes its only user.
    struct Unchecked<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
