/// The checks an origin makes of a segment a remote encoder pushed, before it accepts it: more
/// than a mirror's (`SegmentCheck`), since nothing upstream vouches for it. Whole packets with
/// their sync bytes; the program tables (PAT, then the PMT it names) before any media packet,
/// in any order among themselves (libavformat's muxer writes its SDT first, and
/// `TransportStreamHeaders.patFirst` puts them in the order Sideline serves); a video stream
/// whose first access unit is a keyframe, so the segment plays on its own; and its duration
/// from the video timestamps, to compare with the playlist's EXTINF. Pure, over bytes in memory.
public enum PushedSegmentCheck {
    public struct Inspection: Sendable, Equatable {
        public var videoPID: Int
        /// From the first video PTS to the last plus one frame interval, in seconds.
        public var duration: Double
        /// The first video PTS, in 90 kHz ticks.
        public var firstPTS: Int64
        /// Where the first keyframe's packets end: bytes `0..<keyframeEnd` (the program tables
        /// and the keyframe) decode on their own, which is what an I-frame playlist lists.
        public var keyframeEnd: Int
        /// The video's PMT stream type (`h264` or `hevc`).
        public var videoStreamType: Int
        /// The PMT stream types of the audio it carries (`audioTypes`), in PMT order.
        public var audioStreamTypes: [Int]

        public init(videoPID: Int, duration: Double, firstPTS: Int64, keyframeEnd: Int, videoStreamType: Int = PushedSegmentCheck.h264, audioStreamTypes: [Int] = []) {
            self.videoPID = videoPID
            self.duration = duration
            self.firstPTS = firstPTS
            self.keyframeEnd = keyframeEnd
            self.videoStreamType = videoStreamType
            self.audioStreamTypes = audioStreamTypes
        }

        /// The inspection of the segment as pushed, from one of its bytes restamped by `stamp`
        /// (`TransportStreamRestamp`): its first PTS moved back, modulo 2^33 as timestamps wrap.
        public func unstamped(by stamp: Int64) -> Inspection {
            var pushed = self
            pushed.firstPTS = TransportStreamRestamp.shifted(firstPTS, by: -(stamp % TransportStreamRestamp.wrap))
            return pushed
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case packets(SegmentCheck.Failure)
        case noProgramTables
        case mediaBeforeProgramMap(pid: Int)
        case noVideoStream
        case firstVideoNotKeyframe
        case noVideoTimestamps

        public var description: String {
            switch self {
            case let .packets(failure): "\(failure)"
            case .noProgramTables: "no PAT and PMT before the media: the segment cannot be decoded on its own"
            case let .mediaBeforeProgramMap(pid): "a media packet (PID \(pid)) comes before the program tables (PAT, PMT)"
            case .noVideoStream: "the PMT lists no H.264 or HEVC video stream"
            case .firstVideoNotKeyframe: "the first video frame is not a keyframe (IDR): cut segments on keyframes (ffmpeg: -force_key_frames, or -g at the segment length)"
            case .noVideoTimestamps: "the video carries no PTS, so the segment's duration cannot be measured"
            }
        }
    }

    /// PMT stream types of the video codecs HLS carries in MPEG-TS (ISO/IEC 13818-1 Table 2-34).
    public static let h264 = 0x1B
    public static let hevc = 0x24
    /// PMT stream types of audio: MPEG-1 and -2 audio, AAC in ADTS and in LATM, AC-3, E-AC-3.
    public static let audioTypes: Set<Int> = [0x03, 0x04, 0x0F, 0x11, 0x81, 0x87]

    public static func inspect(_ bytes: [UInt8], announced: Int? = nil) -> Result<Inspection, Failure> {
        if let failure = SegmentCheck.verify(TransportStreamHeaders.patFirst(bytes), announced: announced) { return .failure(.packets(failure)) }
        let packets = stride(from: 0, to: bytes.count, by: TransportStreamPacket.size).compactMap { TransportStreamPacket(bytes, at: $0) }
        // The leading tables: PAT (PID 0), the PMTs it names, and SDT/NIT (PIDs below 0x20).
        var pmtPIDs: Set<Int> = []
        var video: (pid: Int, type: Int)?
        var audio: [Int] = []
        var index = 0
        while index < packets.count {
            let packet = packets[index]
            if packet.pid == TransportStreamHeaders.patPID {
                pmtPIDs.formUnion(TransportStreamHeaders.programMapPIDs(in: bytes, pat: packet))
            } else if pmtPIDs.contains(packet.pid) {
                let streams = elementaryStreams(in: bytes, pmt: packet)
                video = streams.first { $0.type == h264 || $0.type == hevc }
                audio = streams.map(\.type).filter(audioTypes.contains)
            } else if packet.pid >= 0x20 {
                break
            }
            index += 1
        }
        guard !pmtPIDs.isEmpty else { return .failure(index < packets.count ? .mediaBeforeProgramMap(pid: packets[index].pid) : .noProgramTables) }
        guard let (videoPID, videoType) = video else {
            return .failure(index < packets.count && !packets[..<index].contains { pmtPIDs.contains($0.pid) }
                ? .mediaBeforeProgramMap(pid: packets[index].pid) : .noVideoStream)
        }
        let videoPackets = packets[index...].filter { $0.pid == videoPID }
        guard let first = videoPackets.first(where: \.unitStart) else { return .failure(.noVideoTimestamps) }
        guard isKeyframe(first, of: videoPackets, hevc: videoType == hevc, in: bytes) else { return .failure(.firstVideoNotKeyframe) }
        let stamps = videoPackets.compactMap { pts(of: $0, in: bytes) }
        guard let start = stamps.first else { return .failure(.noVideoTimestamps) }
        // Each presentation time from the first, across the 2^33 wrap (26.5 hours of 90 kHz
        // ticks): one that lies less than half a wrap before the first is earlier (a B-frame),
        // not a day later.
        let wrap = TransportStreamRestamp.wrap
        let fromStart = stamps.map { stamp -> Int64 in
            let ahead = ((stamp &- start) % wrap + wrap) % wrap
            return ahead >= wrap / 2 ? ahead - wrap : ahead
        }
        let end = fromStart.max() ?? 0
        let sorted = Array(Set(fromStart)).sorted()
        // One frame interval: the smallest step between presentation times (B-frames reorder them).
        let frame = zip(sorted, sorted.dropFirst()).map { $1 - $0 }.min() ?? 0
        // The keyframe's access unit runs until the next video PES starts.
        let keyframeEnd = videoPackets.drop(while: { $0 != first }).dropFirst().first(where: \.unitStart)?.start ?? bytes.count
        return .success(Inspection(videoPID: videoPID, duration: Double(end + frame) / 90_000, firstPTS: start, keyframeEnd: keyframeEnd,
                                   videoStreamType: videoType, audioStreamTypes: audio))
    }

    /// The elementary streams a PMT section in one packet lists (§2.4.4.8), in its order.
    static func elementaryStreams(in bytes: [UInt8], pmt packet: TransportStreamPacket) -> [(pid: Int, type: Int)] {
        guard packet.unitStart, packet.hasPayload else { return [] }
        let section = packet.payload + 1 + Int(bytes[packet.payload])
        let packetEnd = packet.end
        guard section + 12 <= packetEnd else { return [] }
        let sectionLength = Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])
        let end = min(section + 3 + sectionLength - 4, packetEnd)
        let programInfoLength = Int(bytes[section + 10] & 0x0F) << 8 | Int(bytes[section + 11])
        var entry = section + 12 + programInfoLength
        var streams: [(pid: Int, type: Int)] = []
        while entry + 5 <= end {
            let type = Int(bytes[entry])
            let pid = Int(bytes[entry + 1] & 0x1F) << 8 | Int(bytes[entry + 2])
            streams.append((pid, type))
            entry += 5 + (Int(bytes[entry + 3] & 0x0F) << 8 | Int(bytes[entry + 4]))
        }
        return streams
    }

    /// Whether the PES that `first` starts is a keyframe: the adaptation field's
    /// random_access_indicator (§2.4.3.5), or an IDR slice (H.264 NAL type 5; HEVC IRAP, types
    /// 16-23) among the NAL units of that PES.
    static func isKeyframe(_ first: TransportStreamPacket, of video: [TransportStreamPacket], hevc: Bool, in bytes: [UInt8]) -> Bool {
        if first.isRandomAccess(in: bytes) { return true }
        // A PES header that claims more than its packet holds starts its data at the packet's end.
        guard let data = first.elementaryStreamStart(in: bytes) else { return false }
        var payload = Array(bytes[data..<first.end])
        for packet in video.drop(while: { $0 != first }).dropFirst() {
            if packet.unitStart { break }
            if packet.hasPayload { payload += bytes[packet.payload..<packet.end] }
        }
        var i = 0
        while i + 3 < payload.count {
            if payload[i] == 0, payload[i + 1] == 0, payload[i + 2] == 1 {
                let header = payload[i + 3]
                if hevc ? (16...23).contains(Int(header >> 1) & 0x3F) : header & 0x1F == 5 { return true }
                i += 3
            } else {
                i += 1
            }
        }
        return false
    }

    static func pts(of packet: TransportStreamPacket, in bytes: [UInt8]) -> Int64? {
        guard let at = packet.timestampOffsets(in: bytes)?.pts else { return nil }
        return TransportStreamRestamp.readTimestamp(bytes, at: at)
    }
}
