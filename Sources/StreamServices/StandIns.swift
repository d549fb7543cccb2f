import Foundation
import HLSPlaylist
import Logging
import MediaPipeline
import SegmentStore
import SidelineCore

/// One variant's stand-in segment: the "technical difficulty" card with silence, one slot
/// long, encoded at media time 0 with the variant's own settings.
public struct StandIn: Sendable {
    let bytes: [UInt8]
    let keyframeRanges: [Range<Int>]
    let duration: Double
    let format: VariantFormat
}

/// Every variant's stand-in, kept in memory and on disk (`<variant>/stand-in.ts` with a
/// `stand-in.json` beside it), so a restarted process has them before its pipeline runs. A
/// copy on disk is used only when it was encoded for the same settings; otherwise it is
/// encoded again (a fraction of a second per rung) before anything is served.
public enum StandIns {
    static let segmentName = "stand-in.ts"
    static let descriptionName = "stand-in.json"

    /// What `stand-in.json` holds: the settings it was encoded for, and what the publisher
    /// needs without decoding it.
    private struct Description: Codable, Equatable {
        var settings: String
        var duration: Double
        var codecs: [String]
        var width: Int
        var height: Int
        var frameRate: Double
        var keyframeRanges: [[Int]]
    }

    static func load(_ configuration: PipelineConfiguration, layout: StreamLayout, withAudio: Bool, logger: Logger) throws -> [String: StandIn] {
        var standIns: [String: StandIn] = [:]
        for spec in configuration.variants {
            let directory = layout.variantDirectory(spec.name)
            // `format`: bumped when the stand-in's bytes change for the same settings (2: PAT first;
            // 3: encoded as the rung is with parts, no B-frames and slice threads; 4: CODECS declares the
            // profile that covers every effort step).
            let framesPerPart = configuration.partClock.map { Int($0.minimumFramesPerPart) }
            let settings = "format=4 \(spec) \(configuration.frameRate) D=\(configuration.segmentDuration) audio=\(withAudio ? "\(configuration.audio)" : "none") parts=\(framesPerPart ?? 0)"
            if let cached = read(directory: directory, settings: settings) {
                standIns[spec.name] = cached
                continue
            }
            let started = ContinuousClock.now
            let result = try StandInEncoder.encode(spec: spec, frameRate: configuration.frameRate, segmentDuration: configuration.segmentDuration,
                                                   audio: withAudio ? configuration.audio : nil, framesPerPart: framesPerPart)
            let standIn = StandIn(bytes: result.segment.bytes, keyframeRanges: result.segment.keyframeRanges, duration: result.segment.duration, format: result.format)
            standIns[spec.name] = standIn
            logger.info("stand-in encoded", metadata: ["variant": "\(spec.name)", "bytes": "\(standIn.bytes.count)",
                                                       "milliseconds": "\(Int(started.duration(to: .now).inSeconds * 1000))"])
            let description = Description(settings: settings, duration: standIn.duration, codecs: standIn.format.codecs, width: standIn.format.width,
                                          height: standIn.format.height, frameRate: standIn.format.frameRate,
                                          keyframeRanges: standIn.keyframeRanges.map { [$0.lowerBound, $0.upperBound] })
            do {
                try AtomicFile.write(standIn.bytes, to: "\(directory)/\(segmentName)")
                try AtomicFile.write(Array(try JSONEncoder().encode(description)), to: "\(directory)/\(descriptionName)")
            } catch {
                // Kept in memory all the same; a restart encodes it again.
                logger.warning("stand-in not saved", metadata: ["variant": "\(spec.name)", "error": "\(error)"])
            }
        }
        return standIns
    }

    private static func read(directory: String, settings: String) -> StandIn? {
        guard let data = FileManager.default.contents(atPath: "\(directory)/\(descriptionName)"),
              let description = try? JSONDecoder().decode(Description.self, from: data), description.settings == settings,
              let bytes = FileManager.default.contents(atPath: "\(directory)/\(segmentName)"), !bytes.isEmpty,
              description.keyframeRanges.allSatisfy({ $0.count == 2 && $0[0] < $0[1] && $0[1] <= bytes.count }) else { return nil }
        return StandIn(bytes: [UInt8](bytes), keyframeRanges: description.keyframeRanges.map { $0[0]..<$0[1] }, duration: description.duration,
                       format: VariantFormat(codecs: description.codecs, width: description.width, height: description.height, frameRate: description.frameRate))
    }
}
