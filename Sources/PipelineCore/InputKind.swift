/// What an input string names, which decides how it is opened, paced and explained when it
/// fails. Pure, so the rules are tested on their own.
public enum InputKind: Sendable, Equatable {
    /// A media file, paced at real time as if it were a camera.
    case file(path: String)
    /// A capture device opened through libavdevice with the named input format.
    case device(format: String, path: String)
    /// Anything libavformat opens by URL: rtsp://, srt://, udp://, rtmp://, http(s)://, ...
    case url(String)
    /// `testpattern`: a built-in source (libavfilter through libavdevice's lavfi input) with a
    /// moving picture, a burned-in wall clock and frame counter, and a 1 kHz tone, so a server
    /// can be set up and checked with no camera or file.
    case testPattern
    /// The "signal lost" card Sideline encodes while a live input is lost (never named by a
    /// config: the pipeline opens it itself).
    case slate(width: Int, height: Int)
    /// The "technical difficulty" card a stand-in segment shows (see `StandInEncoder`).
    case standInCard(width: Int, height: Int)

    public static let testPatternName = "testpattern"

    public init(classifying input: String) {
        if input.lowercased() == Self.testPatternName {
            self = .testPattern
        } else if let device = Self.soundDevice(input) {
            self = device
        } else if input.contains("://") {
            self = .url(input)
        } else if input.hasPrefix("/dev/video") {
            self = .device(format: "video4linux2", path: input)
        } else if input.hasPrefix("/dev/") {
            self = .device(format: "", path: input)
        } else {
            self = .file(path: input)
        }
    }

    /// `alsa:hw:1,0`, `pulse:default`: a sound capture device through libavdevice.
    private static func soundDevice(_ input: String) -> InputKind? {
        for format in ["alsa", "pulse"] where input.hasPrefix(format + ":") && !input.hasPrefix(format + "://") {
            let name = String(input.dropFirst(format.count + 1))
            return name.isEmpty ? nil : .device(format: format, path: name)
        }
        return nil
    }

    /// Live sources deliver frames at their own pace; files must be paced by Sideline.
    public var needsPacing: Bool {
        switch self {
        case .file, .testPattern, .slate, .standInCard: true
        case .device, .url: false
        }
    }

    /// Whether losing the input is an outage to ride out (reconnecting, with the slate on air)
    /// rather than the end: cameras and feeds. A file ends or loops; the test pattern never fails.
    public var reconnects: Bool {
        switch self {
        case .device, .url: true
        case .file, .testPattern, .slate, .standInCard: false
        }
    }

    /// What to tell the operator when the input cannot be opened.
    public var openFailureHint: String {
        switch self {
        case .file: "Check that the file is a media file FFmpeg can read (try: ffprobe <file>)."
        case let .device(format, _) where format == "alsa" || format == "pulse":
            "Check that the sound device exists and is not in use by another program (try: arecord -l, or pactl list sources)."
        case .device: "Check that the device exists, is not in use by another program and that this user may open it (try: v4l2-ctl --list-devices)."
        case .url: "Check that the address is right, the sender is running and reachable from this machine (try: ffprobe <url>)."
        case .testPattern, .slate, .standInCard: "The test pattern and the slate need libavfilter with the testsrc2, drawtext and sine filters (Debian's libavfilter8 has them) and a font (fonts-dejavu-core)."
        }
    }
}
