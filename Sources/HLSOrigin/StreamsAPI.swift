import Foundation
import NIOCore

/// `GET /api/streams`: what the server has, for dashboards and operators.
public struct StreamsAPI: Sendable {
    public struct Listing: Codable, Equatable, Sendable {
        public var streams: [StreamInfo]
    }

    public struct StreamInfo: Codable, Equatable, Sendable {
        public var id: String
        public var title: String
        /// starting, live, ended or failed.
        public var state: String
        public var master: String
        public var targetDuration: Int
        public var variants: [VariantInfo]
    }

    public struct VariantInfo: Codable, Equatable, Sendable {
        public var name: String
        public var playlist: String
        public var segments: Int
        /// Seconds of media recorded.
        public var durationRecorded: Double
        /// Measured from the segments on disk, in bits per second.
        public var averageBitRate: Int
        public var peakSegmentBitRate: Int

        public init(name: String, playlist: String, segments: Int, durationRecorded: Double, averageBitRate: Int, peakSegmentBitRate: Int) {
            self.name = name
            self.playlist = playlist
            self.segments = segments
            self.durationRecorded = durationRecorded
            self.averageBitRate = averageBitRate
            self.peakSegmentBitRate = peakSegmentBitRate
        }
    }

    public static func listing(of registry: StreamRegistry) -> Listing {
        Listing(streams: registry.streamNames.compactMap { name in
            guard let stream = registry.stream(named: name) else { return nil }
            return StreamInfo(
                id: name, title: stream.title, state: stream.phase.rawValue,
                master: "/live/\(name)/master.m3u8", targetDuration: stream.targetDuration,
                variants: stream.variantOrder.filter { stream.variants[$0] != nil }.map { variantName in
                    let recorded = stream.variants[variantName]!.recorded
                    return VariantInfo(
                        name: variantName, playlist: "/live/\(name)/\(variantName)/index.m3u8",
                        segments: recorded.segments, durationRecorded: (recorded.duration * 1000).rounded() / 1000,
                        averageBitRate: Int(recorded.averageBitRate.rounded()), peakSegmentBitRate: Int(recorded.peakBitRate.rounded())
                    )
                }
            )
        })
    }

    public static func json(of registry: StreamRegistry) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return ByteBuffer(bytes: try encoder.encode(listing(of: registry)))
    }
}
