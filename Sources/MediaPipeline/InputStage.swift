import CFFmpeg
import Foundation
import Logging
import PipelineCore
import SidelineCore
import Synchronization

/// The input thread's work: demux, pace, decode, conform to the output frame rate, encode
/// audio once, and fan frames and packets out to the variant workers.
final class InputStage {
    let configuration: PipelineConfiguration
    /// The input being read: the camera or feed, or the slate while it is lost.
    private(set) var input: MediaInput
    let audioEncoder: AudioEncoder?
    /// A separate audio input, read on its own thread; then `audioEncoder` is nil.
    let audioCapture: AudioCaptureStage?
    let workers: [VariantWorker]
    private let logger: Logger
    private let statistics: @Sendable ((inout PipelineStatistics) -> Void) -> Void
    private let isStopping: @Sendable () -> Bool
    private let timings: SegmentTimings
    private let clock: SegmentClock
    private let drills: PipelineDrills
    private let onEvent: @Sendable (PipelineEvent) -> Void
    /// The pipeline's own deadline: cancelled when it stops; every input opened later
    /// (the slate, a reopened camera) gets a deadline of its own under it.
    private let stopDeadline: InterruptDeadline
    /// When the latest video frame was read, for placing the slate on the wall clock.
    private var lastVideoWall: ContinuousClock.Instant?

    private var conformer: FrameRateConformer
    /// The output frame the pipeline starts at (see `begin(atSegment:)`).
    private var firstFrame: Int64 = 0
    /// An angle of a set: the set's epoch, from which frames are placed by arrival time.
    private var setEpoch: Date?
    /// Whether a video frame has been placed yet (the audio input starts from it).
    private var placedAny = false
    /// Where each frame falls across loops and input switches (`InputTimeline`).
    private var timeline: InputTimeline
    private var pacingStart: ContinuousClock.Instant?
    private var pacingOrigin: Double?
    /// When the latest paced video packet was due: for the test pattern, the moment its frame
    /// was captured (the pattern is a camera whose shutter is the pacing; its decoder holds no
    /// frame back, so the latest video packet is the frame being placed).
    private var videoPacketDue: ContinuousClock.Instant?
    /// Whether a full variant queue may hold up the input (see `FeedPolicy`).
    private let feedPolicy: FeedPolicy
    /// Which rungs take nothing: shed, or taken back and waiting for a segment start.
    private let gate: ShedGate

    init(configuration: PipelineConfiguration, input: MediaInput, audioEncoder: AudioEncoder?, audioCapture: AudioCaptureStage?, workers: [VariantWorker], logger: Logger,
         statistics: @escaping @Sendable ((inout PipelineStatistics) -> Void) -> Void, isStopping: @escaping @Sendable () -> Bool,
         timings: SegmentTimings, drills: PipelineDrills = PipelineDrills(), stopDeadline: InterruptDeadline? = nil, gate: ShedGate? = nil,
         onEvent: @escaping @Sendable (PipelineEvent) -> Void = { _ in }) {
        self.gate = gate ?? ShedGate(control: configuration.shedding)
        self.timings = timings
        self.drills = drills
        self.onEvent = onEvent
        self.stopDeadline = stopDeadline ?? InterruptDeadline(timeout: .seconds(configuration.inputTimeout))
        self.clock = configuration.clock
        self.configuration = configuration
        self.input = input
        self.audioEncoder = audioEncoder
        self.audioCapture = audioCapture
        self.workers = workers
        self.logger = logger
        self.statistics = statistics
        self.isStopping = isStopping
        self.conformer = FrameRateConformer(frameRate: configuration.frameRate)
        self.timeline = InputTimeline(frameDuration: configuration.frameRate.frameDuration)
        // A file encoded as fast as possible may wait for its encoders; anything paced at real
        // time, or a live source, may not.
        let live = configuration.realtime || !input.kind.needsPacing
        self.feedPolicy = FeedPolicy.forInput(live: live, capacity: workers.first?.queue.capacity ?? 8)
    }

    /// Places the pipeline's first frame at the start of timeline slot `segment`; for an angle
    /// of a set (`setEpoch`), at the output frame of when it reached the server, not before that
    /// slot. Called before `run()`, on the thread that hands the stage to the input thread.
    func begin(atSegment segment: Int, setEpoch: Date? = nil) {
        firstFrame = clock.firstFrame(ofSegment: segment)
        self.setEpoch = setEpoch
        conformer = FrameRateConformer(frameRate: configuration.frameRate, startIndex: firstFrame)
        audioCapture?.timelineStart = clock.startTime(ofSegment: segment)
    }

    /// Reads until the input ends (and does not loop), fails, or the pipeline stops; then sends
    /// `.end` to every worker. Returns the read error, if any.
    func run() -> PipelineError? {
        var failure: PipelineError?
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
        }
        audioCapture?.start()
        do {
            try readLoop(packet: packet!, frame: frame!)
        } catch let error as PipelineError {
            failure = error
        } catch {
            failure = .internalFailure("\(error)")
        }
        do {
            try audioEncoder?.drain { packet in workers.fanOut(audio: packet, policy: feedPolicy, leavingOut: gate.leftOutOfAudio()) }
        } catch {
            logger.warning("audio encoder drain failed", metadata: ["error": "\(error)"])
        }
        audioCapture?.stopAndWait()
        if conformer.nextIndex > firstFrame {
            timings.markInputComplete(segment: clock.segment(ofFrame: conformer.nextIndex - 1))
        }
        for worker in workers { worker.queue.put(.end) }
        return failure
    }

    /// Reads the input; a camera or feed that is lost is ridden out (slate on air while it
    /// reconnects) and reading goes on with it when it is back.
    private func readLoop(packet: UnsafeMutablePointer<AVPacket>, frame: UnsafeMutablePointer<AVFrame>) throws {
        let reconnects = input.kind.reconnects
        if reconnects { input.container.readTimeout = .milliseconds(Int64(configuration.lossTimeout * 1000)) }
        while true {
            do {
                try readPackets(packet: packet, frame: frame)
                return
            } catch let error as PipelineError where reconnects && !isStopping() {
                if case .internalFailure = error { throw error }
                try rideOutOutage(after: error, packet: packet, frame: frame)
                if isStopping() { return }
            }
        }
    }

    /// Reads packets until the input ends, the pipeline stops, or `switchNow` says so.
    private func readPackets(packet: UnsafeMutablePointer<AVPacket>, frame: UnsafeMutablePointer<AVFrame>, switchNow: () -> Bool = { false }) throws {
        while !isStopping() && !switchNow() {
            if let seconds = drills.takeStall() { stall(for: seconds) }
            if input.kind.reconnects && drills.takeCut() {
                throw PipelineError.readFailed(input: input.input, reason: "cut by a drill")
            }
            guard try input.read(into: packet) else {
                try drainDecoders(frame: frame)
                guard input.kind.needsPacing else {
                    // A camera or feed that closes has not finished the event: the stream is
                    // not ended (no EXT-X-ENDLIST), its input is lost.
                    if isStopping() { return }
                    throw PipelineError.readFailed(input: input.input, reason: "the feed ended (end of stream from the sender)")
                }
                guard configuration.loop, case .file = input.kind, !isStopping() else { return }
                try input.rewind()
                timeline.rewound()
                pacingOrigin = nil
                statistics { $0.loops += 1 }
                continue
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                statistics { $0.corruptPackets += 1 }
                continue
            }
            if configuration.realtime && input.kind.needsPacing { pace(packet) }
            if packet.pointee.stream_index == input.video.streamIndex {
                let accepted = try input.video.decode(packet, frame: frame) { decoded in try handleVideo(decoded) }
                if !accepted { statistics { $0.corruptPackets += 1 } }
            } else if let audio = input.audio, packet.pointee.stream_index == audio.streamIndex {
                let accepted = try audio.decode(packet, frame: frame) { decoded in try handleAudio(decoded) }
                if !accepted { statistics { $0.corruptPackets += 1 } }
            }
        }
    }

    /// Keeps every variant advancing while a live input is lost: the slate goes on air at
    /// once (first catching up with the wall clock for the silence before the loss was
    /// noticed), a reconnect thread reopens the input with backoff, and the input returns at
    /// the first segment boundary after it is ready, so each segment is wholly slate or wholly
    /// camera.
    private func rideOutOutage(after error: PipelineError, packet: UnsafeMutablePointer<AVPacket>, frame: UnsafeMutablePointer<AVFrame>) throws {
        let lostAt = Date()
        let next = conformer.nextIndex
        let firstSlateSegment = clock.segment(ofFrame: next) + (clock.startsSegment(frame: next) ? 0 : 1)
        logger.error("input lost; the slate is on air while reconnecting", metadata: ["error": "\(error)", "first-slate-segment": "\(firstSlateSegment)"])
        statistics { $0.inputLosses += 1 }
        onEvent(.inputLost(reason: "\(error)", since: lostAt, firstSlateSegment: firstSlateSegment))

        if isStopping() { return }
        // The lost input is closed first: a UDP port or SRT listener can then be bound again.
        let lastFrameWall = lastVideoWall
        let largest = configuration.variants.max { $0.width * $0.height < $1.width * $1.height }
        input = try MediaInput(input: "slate", kind: .slate(width: largest?.width ?? 1280, height: largest?.height ?? 720),
                               timeout: configuration.inputTimeout, deadline: InterruptDeadline(timeout: .seconds(configuration.inputTimeout), parent: stopDeadline),
                               frameRate: configuration.frameRate, withAudio: audioEncoder != nil)
        switchInput(wallClockOfNextFrame: lastFrameWall.map { $0 + .milliseconds(Int64(configuration.frameRate.frameDuration * 1000)) })

        let settings = configuration
        let stopDeadline = self.stopDeadline
        let withAudio = audioEncoder != nil
        let reconnector = InputReconnector(logger: logger, isHeldDown: { [drills] in drills.isInputHeldDown }) { () throws(PipelineError) -> MediaInput in
            let input = try MediaInput(input: settings.input, timeout: settings.inputTimeout,
                                       deadline: InterruptDeadline(timeout: .seconds(settings.inputTimeout), parent: stopDeadline),
                                       frameRate: settings.frameRate, options: settings.inputOptions, withAudio: withAudio)
            input.container.readTimeout = .milliseconds(Int64(settings.lossTimeout * 1000))
            return input
        }
        reconnector.start()
        defer { reconnector.cancel() }
        try readPackets(packet: packet, frame: frame) { reconnector.isReady && clock.startsSegment(frame: conformer.nextIndex) }
        guard !isStopping(), let restored = reconnector.take() else { return }
        input = restored
        switchInput(wallClockOfNextFrame: nil)
        let firstLiveSegment = clock.segment(ofFrame: conformer.nextIndex)
        logger.notice("input restored", metadata: ["first-live-segment": "\(firstLiveSegment)", "lost-for-seconds": "\(Int(Date().timeIntervalSince(lostAt)))"])
        onEvent(.inputRestored(at: Date(), firstLiveSegment: firstLiveSegment))
    }

    /// Continues the output timeline with a new input: its first frame becomes the next
    /// output frame. A paced input (the slate) is paced so that frame is due at
    /// `wallClockOfNextFrame` (now when nil).
    private func switchInput(wallClockOfNextFrame: ContinuousClock.Instant?) {
        timeline.switched()
        pacingOrigin = nil
        pacingStart = (wallClockOfNextFrame ?? .now) - .milliseconds(Int64(timeline.offset * 1000))
        conformer.reanchor()
    }

    /// The stall drill: stop reading, as a hung pipeline would, but still notice a stop.
    private func stall(for seconds: Double) {
        logger.warning("drill: input thread stalls", metadata: ["seconds": "\(seconds)"])
        let start = ContinuousClock.now
        let until = start + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < until && !isStopping() { Thread.sleep(forTimeInterval: 0.05) }
        // A paced file resumes at real time instead of racing to catch up with the wall clock.
        pacingStart = pacingStart.map { $0 + start.duration(to: .now) }
    }

    private func drainDecoders(frame: UnsafeMutablePointer<AVFrame>) throws {
        try input.video.decode(nil, frame: frame) { decoded in try handleVideo(decoded) }
        if let audio = input.audio { try audio.decode(nil, frame: frame) { decoded in try handleAudio(decoded) } }
    }

    /// Waits until the packet's time has come on the wall clock, like `ffmpeg -re`.
    private func pace(_ packet: UnsafeMutablePointer<AVPacket>) {
        let stamp = packet.pointee.dts != sideline_nopts_value() ? packet.pointee.dts : packet.pointee.pts
        guard stamp != sideline_nopts_value(), let stream = input.streamTimeBase(of: packet.pointee.stream_index) else { return }
        let time = Double(stamp) * av_q2d(stream)
        if pacingOrigin == nil {
            pacingOrigin = time - timeline.offset
            if pacingStart == nil { pacingStart = .now }
        }
        let due = pacingStart! + .microseconds(Int64(((time - pacingOrigin!) * 1_000_000).rounded()))
        if packet.pointee.stream_index == input.video.streamIndex { videoPacketDue = due }
        while !isStopping() && ContinuousClock.now < due {
            Thread.sleep(forTimeInterval: min(0.05, max(0, (ContinuousClock.now.duration(to: due)).inSeconds)))
        }
    }

    private func handleVideo(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        let time = timeline.video(stamp: frame.timestampSeconds(timeBase: input.video.timeBase))
        lastVideoWall = .now
        let before = (conformer.dropped, conformer.repeated, conformer.jumps)
        // The moment a frame stands for: when it reached the server (decoded here).
        let arrived = Date()
        let indices = setEpoch.map { conformer.place(inputTime: time, arrival: arrived.timeIntervalSince($0)) } ?? conformer.place(inputTime: time)
        if (conformer.dropped, conformer.repeated, conformer.jumps) != before {
            statistics {
                $0.droppedFrames = conformer.dropped
                $0.repeatedFrames = conformer.repeated
                $0.timestampJumps = conformer.jumps
            }
        }
        guard !indices.isEmpty else { return }
        frame.pointee.pict_type = AV_PICTURE_TYPE_NONE
        // The test pattern carries its capture time in pixels (Docs/operations.md, Test pattern):
        // when its paced packet was due, as a camera's shutter fires on time whenever the frame
        // reaches the server. Painting the arrival instead would paint the input thread's own
        // scheduling delay into the clock that measures placement. Every frame of this output
        // slot shares the capture time of the frame that filled it.
        var captured = arrived
        if case .testPattern = input.kind {
            if let due = videoPacketDue { captured = arrived.addingTimeInterval(-max(0, due.duration(to: .now).inSeconds)) }
            frame.paintPatternClock(captured: captured)
        }
        if let audioCapture, !placedAny {
            // An angle of a set may start after its first slot's start: the audio starts where the video does.
            audioCapture.timelineStart = configuration.frameRate.time(ofFrame: indices.lowerBound)
            audioCapture.videoOrigin.withLock { $0 = .now }
        }
        placedAny = true
        for index in indices {
            // The first frame of segment k means the last frame of segment k - 1 has been read.
            if index > firstFrame && clock.startsSegment(frame: index) {
                timings.markInputComplete(segment: clock.segment(ofFrame: index) - 1)
            }
            let startsSegment = clock.startsSegment(frame: index)
            let leftOut = gate.leftOut(startsSegment: startsSegment)
            for worker in workers {
                if !leftOut.isEmpty && leftOut.contains(worker.spec.name) { continue }
                switch feedPolicy.decide(queued: worker.queue.count, essential: startsSegment, framesQueued: worker.queuedFrames.load(ordering: .relaxed)) {
                case .send:
                    guard let owned = OwnedFrame(cloning: frame) else { throw PipelineError.internalFailure("av_frame_clone failed") }
                    worker.feed(.video(owned, index: index, captured: captured), policy: feedPolicy)
                case .drop:
                    let dropped = worker.droppedFrames.add(1, ordering: .relaxed).newValue
                    statistics { $0.framesDroppedBySlowVariants += 1 }
                    if dropped == 1 || dropped % 300 == 0 {
                        logger.warning("variant cannot keep up with the live input; dropping frames (segment starts are kept)",
                                       metadata: ["variant": "\(worker.spec.name)", "dropped": "\(dropped)"])
                    }
                case .abandon:
                    worker.abandonAsStalled(policy: feedPolicy)
                }
            }
        }
    }

    private func handleAudio(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        guard let audioEncoder, let audio = input.audio, let stamp = frame.timestampSeconds(timeBase: audio.timeBase),
              let onTimeline = timeline.audio(stamp: stamp) else { return }
        let time = onTimeline + conformer.offset
        try audioEncoder.push(frame, outputTime: time) { packet in workers.fanOut(audio: packet, policy: feedPolicy, leavingOut: gate.leftOutOfAudio()) }
    }
}

extension MediaInput {
    func streamTimeBase(of index: Int32) -> AVRational? {
        if index == video.streamIndex { return video.timeBase }
        if let audio, index == audio.streamIndex { return audio.timeBase }
        return nil
    }
}

extension UnsafeMutablePointer<AVFrame> {
    /// The frame's time in seconds: its best-effort timestamp, else its PTS; nil without either.
    func timestampSeconds(timeBase: AVRational) -> Double? {
        let stamp = pointee.best_effort_timestamp != sideline_nopts_value() ? pointee.best_effort_timestamp : pointee.pts
        guard stamp != sideline_nopts_value() else { return nil }
        return Double(stamp) * av_q2d(timeBase)
    }
}

