import Foundation
import SidelineCore
import Yams

/// `boxes`: the venue's other boxes behind the same edge, each encoding cameras of its own
/// (issue 35, "cameras spread over boxes"). A stream another box encodes may be an angle of a
/// set here: this box lists it in the set's master, marks it and clips it through that box,
/// while the edge sends the angle's own URLs to the box that serves it. Every box that lists
/// `boxes` runs every stream on the universal timeline, so the angles of a set agree on every
/// slot's number, date and presentation time whichever box encodes them. For example:
///
///     boxes:
///       - url: http://10.0.0.12:8080
///         streams: [goal, tunnel]
public struct VenueBoxSettings: Sendable, Equatable {
    /// The other box's base URL as this box reaches it (http:// or https://, no query).
    public var url: String
    /// The streams that box encodes and serves, by name.
    public var streams: [String]

    public init(url: String, streams: [String]) {
        self.url = url
        self.streams = streams
    }

    /// `url` without a trailing slash, for joining paths to it.
    public var base: String { url.hasSuffix("/") ? String(url.dropLast()) : url }

    /// Bounds on what the config may list: a venue's boxes and their cameras, far beyond any
    /// stadium's, so a typo cannot make this box poll thousands of addresses.
    public static let maximumBoxes = 16
    public static let maximumStreamsPerBox = 64
}

extension SidelineConfiguration {
    /// Every box of the venue runs on the universal grid (`SetTimeline.universal`): the two
    /// boxes of a redundant pair, and the boxes whose cameras form one set.
    public var usesUniversalTimeline: Bool { redundancy != nil || !boxes.isEmpty }

    /// The box that serves `stream`, when another box does.
    public func box(serving stream: String) -> VenueBoxSettings? {
        boxes.first { $0.streams.contains(stream) }
    }

    /// Every stream another box serves, with that box's base URL.
    public var remoteAngleBoxes: [String: String] {
        Dictionary(boxes.flatMap { box in box.streams.map { ($0, box.base) } }, uniquingKeysWith: { first, _ in first })
    }

    static func venueBoxes(from nodes: [Node], file: String) throws(ConfigError) -> [VenueBoxSettings] {
        guard nodes.count <= VenueBoxSettings.maximumBoxes else {
            throw .invalidValue(file: file, key: "boxes", value: "\(nodes.count) boxes", expected: "at most \(VenueBoxSettings.maximumBoxes) other boxes")
        }
        return try nodes.enumerated().map { (offset, node) throws(ConfigError) -> VenueBoxSettings in
            var section = try ConfigSection(file: file, path: "boxes[\(offset)]", node: node)
            let url = try section.string("url", matching: isBackupURL, expected: "the other box's base URL, http:// or https://, such as http://10.0.0.12:8080")
            let streams = try section.stringList("streams", matching: StoreNames.isUsable, expected: "the names of the streams that box encodes, of \(StoreNames.rule)")
            try section.rejectUnknownKeys()
            guard let url else {
                throw .invalidValue(file: file, key: "boxes[\(offset)].url", value: "(missing)", expected: "the other box's base URL, such as http://10.0.0.12:8080")
            }
            guard let streams, !streams.isEmpty else {
                throw .invalidValue(file: file, key: "boxes[\(offset)].streams", value: "(missing)", expected: "the names of the streams that box encodes, such as [goal]")
            }
            guard streams.count <= VenueBoxSettings.maximumStreamsPerBox else {
                throw .invalidValue(file: file, key: "boxes[\(offset)].streams", value: "\(streams.count) streams", expected: "at most \(VenueBoxSettings.maximumStreamsPerBox)")
            }
            return VenueBoxSettings(url: url, streams: streams)
        }
    }

    /// A stream is on one box: a name another box serves is no stream or set here, and no two
    /// boxes list it.
    func validateVenueBoxes(file: String) throws(ConfigError) {
        var seen: [String: Int] = [:]
        let local = Set(streams.map { StoreNames.key(of: $0.name) })
        let sets = Set(angleSets.map { StoreNames.key(of: $0.name) })
        for (index, box) in boxes.enumerated() {
            for (position, name) in box.streams.enumerated() {
                let key = "boxes[\(index)].streams[\(position)]"
                if local.contains(StoreNames.key(of: name)) {
                    throw .invalidValue(file: file, key: key, value: name, expected: "a stream this box does not encode itself (it is in 'streams' here; a stream is encoded on one box)")
                }
                if sets.contains(StoreNames.key(of: name)) {
                    throw .invalidValue(file: file, key: key, value: name, expected: "a name no angle set has")
                }
                if let other = seen.updateValue(index, forKey: StoreNames.key(of: name)) {
                    throw .invalidValue(file: file, key: key, value: name, expected: "a stream no other box lists (boxes[\(other)] does)")
                }
            }
            if let pair = redundancy, pair.peerBase == box.base {
                throw .invalidValue(file: file, key: "boxes[\(index)].url", value: box.url, expected: "another box than redundancy.peer (the pair's other box encodes the same cameras; it is not a box of other cameras)")
            }
        }
    }
}
