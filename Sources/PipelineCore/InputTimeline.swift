/// Where each decoded frame of the input falls on the run's input timeline, in seconds from its
/// first video frame, across the passes over a looped file and the inputs a live stream
/// switches between (the slate while a camera is lost, the camera again). The frame-rate
/// conformer then places these times on output frames. Pure: the input thread feeds it stamps.
public struct InputTimeline: Sendable, Equatable {
    public let frameDuration: Double
    /// Input time (seconds) of the current input's first video frame: where its time 0 is.
    public private(set) var origin: Double?
    /// Where the current pass or input starts on the timeline: the end of what came before.
    public private(set) var offset = 0.0
    /// The end of the latest video frame on the timeline: where the next pass or input begins.
    public private(set) var end = 0.0
    private var lastVideo: Double?

    public init(frameDuration: Double) {
        self.frameDuration = frameDuration
    }

    /// The time of a video frame stamped `stamp` (input seconds); a frame with no stamp at all
    /// takes the slot after the last one, or the new input's first slot. (Before this type, a
    /// stampless input after a switch restarted at time 0, behind the slate it followed.)
    public mutating func video(stamp: Double?) -> Double {
        let time: Double
        if let stamp {
            let origin = self.origin ?? stamp
            self.origin = origin
            time = stamp - origin + offset
        } else {
            if origin == nil { origin = 0 }
            time = lastVideo.map { $0 + frameDuration } ?? offset
        }
        lastVideo = time
        end = max(end, time + frameDuration)
        return time
    }

    /// The time of an audio frame stamped `stamp`; nil before the first video frame, which
    /// sets the origin both share.
    public func audio(stamp: Double) -> Double? {
        origin.map { stamp - $0 + offset }
    }

    /// A looped file starts again at its beginning: its stamps repeat, so the origin holds and
    /// the new pass continues where the last one ended.
    public mutating func rewound() {
        offset = end
    }

    /// Another input continues the timeline: its first frame sets a new origin, and it starts
    /// where the last input ended.
    public mutating func switched() {
        origin = nil
        lastVideo = nil
        offset = end
    }
}
