import EncoderEffort
import SidelineCore
/// Everything one live pipeline needs: where the input is and how to encode it.
public struct PipelineConfiguration: Sendable {
    public var input: String
    /// For file inputs: start again at the end instead of finishing.
    public var loop: Bool
    /// For file inputs: deliver frames at real time, as a camera would. Off for benchmarks
    /// and tests that only need the output.
    public var realtime: Bool
    /// Seconds a network input may take to open (and, for inputs that do not reconnect, to
    /// deliver the next packet).
    public var inputTimeout: Double
    /// Seconds without a packet after which a camera or feed counts as lost: the slate goes on
    /// air and the pipeline reconnects. Short, so playlists never stop advancing.
    public var lossTimeout: Double = 1
    /// libavformat options for opening the input (`rtsp_transport: tcp`, `video_size: 1920x1080`,
    /// `rtsp_flags: listen`, ...). They override Sideline's own defaults.
    public var inputOptions: [String: String]
    /// A separate audio input (an ALSA device such as `alsa:hw:1,0`, `pulse:default`, or any
    /// input with audio); nil takes the sound of the main input.
    public var audioInput: String?
    public var audioInputOptions: [String: String] = [:]
    public var frameRate: FrameRate
    public var segmentDuration: Double
    /// Low-Latency HLS: each segment is also handed on in parts of this many seconds
    /// (`PartClock`); nil: whole segments only.
    public var partDuration: Double?
    /// Every part starts with an IDR, not only every segment (`KeyframeSchedule`; a redundant
    /// pair's `redundancy.keyframe_every_part`). No effect without parts.
    public var keyframeEveryPart = false
    public var variants: [Rung]
    public var audio: AudioSpec
    /// Effort steps, threads per rung (see `EffortSettings`).
    public var effort = EffortSettings()
    /// Rungs the box gave up while it runs (`RungShedding`): the input feeds them nothing. One
    /// per stream, shared by every run of its pipeline.
    public var shedding = ShedControl()
    /// Seconds each named variant waits before encoding a frame at its configured effort (times
    /// the step's relative cost at a cheaper one). For the pipeline's tests only (`package`: no
    /// config sets it): it stands in for a machine too slow for a rung (a real encoder's speed
    /// depends on the machine, so it cannot make a test deterministic), so the feed policy can
    /// be tested.
    package var simulatedEncodeDelay: [String: Double] = [:]

    public init(input: String, loop: Bool, realtime: Bool, inputTimeout: Double, frameRate: FrameRate, segmentDuration: Double, variants: [Rung], audio: AudioSpec,
                inputOptions: [String: String] = [:], audioInput: String? = nil, audioInputOptions: [String: String] = [:]) {
        self.inputOptions = inputOptions
        self.audioInput = audioInput
        self.audioInputOptions = audioInputOptions
        self.input = input
        self.loop = loop
        self.realtime = realtime
        self.inputTimeout = inputTimeout
        self.frameRate = frameRate
        self.segmentDuration = segmentDuration
        self.variants = variants
        self.audio = audio
    }

    public var clock: SegmentClock { SegmentClock(frameRate: frameRate, segmentDuration: segmentDuration) }

    /// Where parts fall, when there are parts.
    public var partClock: PartClock? {
        partDuration.flatMap { PartClock(segments: clock, partDuration: $0) }
    }

    /// Where each rung's encoder forces an IDR.
    public var keyframes: KeyframeSchedule {
        KeyframeSchedule(segments: clock, parts: partClock, everyPart: keyframeEveryPart)
    }
}

/// How hard each rung's encoder works on a live input (`EncoderEffort`): the step it starts at,
/// the rule that moves it, and x264's threads per rung. A file encoded as fast as possible
/// always runs at the configured effort (there, busy all the time is the point).
public struct EffortSettings: Sendable {
    /// Whether rungs step their effort down and up on a live input.
    public var adaptive: Bool
    public var rule: EffortRule
    /// The step every rung starts at (the capacity plan's fitting step; clamped per rung).
    public var startingStep: Int
    /// x264 threads per rung; 0 lets x264 choose (1.5 per core, for every rung at once).
    /// `CapacityPlan.threadsPerRung` decides it.
    public var threadsPerRung: Int
    /// Each rung's steps' relative costs by variant name, from the machine's measured table;
    /// a rung not listed uses its steps' own estimates.
    public var relativeCosts: [String: [Double]]

    public init(adaptive: Bool = true, rule: EffortRule = .standard, startingStep: Int = 0, threadsPerRung: Int = 0, relativeCosts: [String: [Double]] = [:]) {
        self.adaptive = adaptive
        self.rule = rule
        self.startingStep = startingStep
        self.threadsPerRung = threadsPerRung
        self.relativeCosts = relativeCosts
    }
}
