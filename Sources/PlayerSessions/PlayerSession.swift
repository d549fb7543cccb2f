/// One player's playback session as its CMCD tells it (`sid`): what it plays, how full its
/// buffer is, what throughput it measures, and whether it is stalling (it reported buffer
/// starvation with its latest request) and since when. Pure: updated from reports and the
/// time they arrived.
public struct PlayerSession: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable, CaseIterable {
        case playing
        /// The latest request carried `bs`: the buffer ran dry since the one before.
        case stalling
    }

    public let sid: String
    public var contentID: String?
    public var stream: String
    public var variant: String?
    public var state: State = .playing
    /// When the current run of starved reports began (seconds, the book's clock).
    public var stallingSince: Double?
    /// How many times the session went from playing to stalling.
    public var stalls = 0
    public var bufferLengthMs: Int?
    public var measuredThroughputKbps: Int?
    public var encodedBitrateKbps: Int?
    public var streamType: String?
    public var userAgent: String?
    public var requests = 0
    public var firstSeen: Double
    public var lastSeen: Double

    public init(sid: String, stream: String, at now: Double) {
        self.sid = sid
        self.stream = stream
        firstSeen = now
        lastSeen = now
    }

    /// Takes one request's report. `variant`: the variant the request was for (nil for a
    /// master playlist, which says nothing about the rung being played).
    public mutating func record(_ report: CMCDReport, stream: String, variant: String?, userAgent: String?, at now: Double) {
        self.stream = stream
        if let variant { self.variant = variant }
        if let contentID = report.contentID { self.contentID = contentID }
        if let length = report.bufferLength { bufferLengthMs = length }
        if let throughput = report.measuredThroughput { measuredThroughputKbps = throughput }
        if let bitrate = report.encodedBitrate { encodedBitrateKbps = bitrate }
        if let type = report.streamType { streamType = type }
        if let userAgent { self.userAgent = String(userAgent.prefix(120)) }
        requests += 1
        lastSeen = now
        // Only object requests say whether the buffer ran dry; a playlist reload without `bs`
        // does not end a stall.
        let isObject = report.objectType.map { $0 != "m" } ?? (variant != nil && report.bufferLength != nil)
        if report.bufferStarvation {
            if state == .playing {
                state = .stalling
                stallingSince = now
                stalls += 1
            }
        } else if isObject, state == .stalling {
            state = .playing
            stallingSince = nil
        }
    }
}
