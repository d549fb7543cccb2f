import SidelineCore
import Yams
/// `angle_sets`: cameras that show one match. Every angle of a set runs on the set's timeline
/// (the same slots, sequence numbers and program date-times), is served together under the
/// set's name, and is marked and clipped together. With `boxes`, a set may name angles other
/// boxes encode: the box of its default angle serves it, and every box that encodes one of its
/// angles lists it too (the same entry), so that one credential for the set opens every angle
/// on every box.
public struct AngleSetSettings: Sendable, Equatable {
    /// The `{set}` of `/live/<set>/master.m3u8` and `/api/sets/<set>`: unique among streams and sets.
    public var name: String
    /// The streams, default angle first: a player that does not switch angles plays the first.
    public var streams: [String]
    /// What the page and the master's EXT-X-SESSION-DATA call the match.
    public var title: String

    public init(name: String, streams: [String], title: String = "") {
        self.name = name
        self.streams = streams
        self.title = title
    }

    /// The default angle: the one every player that does not switch angles plays.
    public var defaultStream: String { streams.first ?? "" }

    /// The most angles one set may hold: a set's master lists every angle's rungs, and the
    /// page shows up to four at once; sixteen is far beyond a venue box's cameras.
    public static let maximumAngles = 16
}

extension SidelineConfiguration {
    /// The set a stream belongs to, if any (a stream belongs to at most one).
    public func angleSet(containing stream: String) -> AngleSetSettings? {
        angleSets.first { $0.streams.contains(stream) }
    }

    public func angleSet(named name: String) -> AngleSetSettings? {
        angleSets.first { $0.name == name }
    }

    /// Whether this box serves `set` (its master, page, markers and clip): it encodes the
    /// set's default angle. A set whose default angle another box encodes is listed here only
    /// so that the set's credential opens this box's angles of it (`AccessRules`); its URLs are
    /// that box's, and the edge sends them there.
    public func isServedHere(_ set: AngleSetSettings) -> Bool {
        box(serving: set.defaultStream) == nil
    }

    /// `set`'s angles this box encodes and those other boxes encode, each in the set's order:
    /// what an export on this box can cut, and what it must leave to the others.
    public func angles(of set: AngleSetSettings) -> (here: [String], elsewhere: [String]) {
        (set.streams.filter { box(serving: $0) == nil }, set.streams.filter { box(serving: $0) != nil })
    }

    /// Each angle another box encodes, with the frame rate of its set's angles on this box
    /// (a set shares one frame grid): what that box's master of it must say.
    public var remoteAngleFrameRates: [String: Double] {
        var rates: [String: Double] = [:]
        for set in angleSets {
            let (here, elsewhere) = angles(of: set)
            guard let rate = here.lazy.compactMap({ name in self.streams.first { $0.name == name }?.video.frameRate }).first else { continue }
            for angle in elsewhere { rates[angle] = rate }
        }
        return rates
    }

    /// The sets this box serves (`isServedHere`).
    public var servedAngleSets: [AngleSetSettings] { angleSets.filter(isServedHere) }

    /// The sets another box serves, each with that box's base URL: the box of its default angle.
    public var angleSetsServedElsewhere: [String: String] {
        Dictionary(angleSets.compactMap { set in box(serving: set.defaultStream).map { (set.name, $0.base) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The rules between sets and streams: unique names, known streams, one set per stream,
    /// one frame rate per set (a set's angles share one frame grid).
    func validateAngleSets(file: String) throws(ConfigError) {
        var setNames: Set<String> = []
        var member: [String: String] = [:]
        let byName = Dictionary(streams.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let streamKeys = Set(streams.map { StoreNames.key(of: $0.name) })
        for (index, set) in angleSets.enumerated() {
            let path = "angle_sets[\(index)]"
            guard !streamKeys.contains(StoreNames.key(of: set.name)) else {
                throw .invalidValue(file: file, key: "\(path).name", value: set.name, expected: "a name no stream has (a set's URLs sit beside its streams')")
            }
            guard setNames.insert(StoreNames.key(of: set.name)).inserted else {
                throw .invalidValue(file: file, key: "\(path).name", value: set.name, expected: "a name no other set has")
            }
            var frameRate: Double?
            for (angle, name) in set.streams.enumerated() {
                if let other = member[name] {
                    throw .invalidValue(file: file, key: "\(path).streams[\(angle)]", value: name,
                                        expected: "a stream no other set holds (it is in set '\(other)' already; a stream belongs to at most one set)")
                }
                member[name] = set.name
                // An angle another box encodes: its frame rate is that box's to check. The set is
                // served, marked and clipped by the box of its default angle; every other box
                // that encodes one of its angles lists it too, so that the set's credential opens
                // its angles there (`isServedHere`).
                if box(serving: name) != nil { continue }
                guard let stream = byName[name] else {
                    let remote = boxes.flatMap(\.streams)
                    throw .invalidValue(file: file, key: "\(path).streams[\(angle)]", value: name,
                                        expected: "the name of a stream in 'streams' (\(streams.map(\.name).joined(separator: ", ")))" + (remote.isEmpty ? "" : " or one another box encodes (boxes: \(remote.joined(separator: ", ")))"))
                }
                if let frameRate, frameRate != stream.video.frameRate {
                    throw .invalidValue(file: file, key: "\(path).streams[\(angle)]", value: "\(name) at \(stream.video.frameRate) fps",
                                        expected: "the frame rate of the set's other angles (\(frameRate) fps): every angle of a set shares one frame grid")
                }
                frameRate = stream.video.frameRate
            }
            guard set.streams.contains(where: { box(serving: $0) == nil }) else {
                throw .invalidValue(file: file, key: "\(path).streams", value: set.streams.joined(separator: ", "),
                                    expected: "at least one stream this box encodes: list a set only on the boxes that encode its angles (other boxes encode all of these)")
            }
        }
    }

    static func angleSets(from nodes: [Node], file: String) throws(ConfigError) -> [AngleSetSettings] {
        try nodes.enumerated().map { (offset, node) throws(ConfigError) -> AngleSetSettings in
            var section = try ConfigSection(file: file, path: "angle_sets[\(offset)]", node: node)
            let name = try section.string("name", matching: StoreNames.isUsable, expected: "a name (the {set} of its URLs) of \(StoreNames.rule)")
            let streams = try section.stringList("streams", matching: StoreNames.isUsable, expected: "stream names, default angle first")
            let title = try section.string("title") ?? ""
            try section.rejectUnknownKeys()
            guard let name else {
                throw .invalidValue(file: file, key: "angle_sets[\(offset)].name", value: "(missing)", expected: "the set's name, the {set} of its URLs")
            }
            guard let streams, !streams.isEmpty else {
                throw .invalidValue(file: file, key: "angle_sets[\(offset)].streams", value: streams == nil ? "(missing)" : "an empty list",
                                    expected: "the names of the set's streams, default angle first")
            }
            guard streams.count <= AngleSetSettings.maximumAngles else {
                throw .invalidValue(file: file, key: "angle_sets[\(offset)].streams", value: "\(streams.count) streams",
                                    expected: "at most \(AngleSetSettings.maximumAngles) angles")
            }
            if let twice = streams.enumerated().first(where: { streams[..<$0.offset].contains($0.element) }) {
                throw .invalidValue(file: file, key: "angle_sets[\(offset)].streams[\(twice.offset)]", value: twice.element, expected: "each stream once")
            }
            return AngleSetSettings(name: name, streams: streams, title: title)
        }
    }
}
