import Foundation

/// ffprobe as the judge of what Sideline wrote: packets, keyframes, timestamps, streams.
public enum FFprobe {
    public struct Packet: Sendable, Equatable {
        public let pts: Double
        public let dts: Double?
        public let isKeyframe: Bool
    }

    public struct Stream: Sendable {
        public let codecType: String
        public let codecName: String
        public let profile: String?
        public let width: Int?
        public let height: Int?
        public let channels: Int?
        public let level: Int?
        /// `r_frame_rate`, e.g. 30 for "30/1".
        public let frameRate: Double?
    }

    /// The packets of the first stream of `type` ("v" or "a"), in file order.
    public static func packets(_ path: String, stream type: String) async throws -> [Packet] {
        let result = try await Command.run("ffprobe", ["-v", "error", "-select_streams", "\(type):0", "-show_entries", "packet=pts_time,dts_time,flags", "-of", "json", path])
        guard result.status == 0 else { throw ProbeFailed(path: path, message: result.stderr) }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let packets = object?["packets"] as? [[String: Any]] ?? []
        return packets.compactMap { packet in
            guard let pts = (packet["pts_time"] as? String).flatMap(Double.init) else { return nil }
            return Packet(pts: pts, dts: (packet["dts_time"] as? String).flatMap(Double.init), isKeyframe: (packet["flags"] as? String)?.hasPrefix("K") ?? false)
        }
    }

    public static func streams(_ path: String) async throws -> [Stream] {
        let result = try await Command.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,profile,width,height,channels,level,r_frame_rate", "-of", "json", path])
        guard result.status == 0 else { throw ProbeFailed(path: path, message: result.stderr) }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object?["streams"] as? [[String: Any]] ?? []).map { s in
            Stream(codecType: s["codec_type"] as? String ?? "", codecName: s["codec_name"] as? String ?? "", profile: s["profile"] as? String,
                   width: s["width"] as? Int, height: s["height"] as? Int, channels: s["channels"] as? Int, level: s["level"] as? Int,
                   frameRate: (s["r_frame_rate"] as? String).flatMap(rate))
        }
    }

    private static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] > 0 else { return nil }
        return parts[0] / parts[1]
    }

    /// Decodes the whole file; returns what the decoder complained about (empty when clean).
    public static func decodeErrors(_ path: String) async throws -> String {
        let result = try await Command.run("ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        return result.status == 0 ? result.stderr : "exit \(result.status): \(result.stderr)"
    }

    public struct ProbeFailed: Error, CustomStringConvertible {
        public let path: String
        public let message: String
        public var description: String { "ffprobe \(path) failed: \(message)" }
    }
}
