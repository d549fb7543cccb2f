import HLSPlaylist
import OriginPolicy
import SidelineCore

/// The ladder a pushed stream with no configured ladder takes from its encoder's master, so a
/// pushed angle needs only a name and a token. The master comes from the network: every
/// number is bounded, the rungs are few, and each name is a safe path component (it becomes
/// a directory and a URL segment), as a configured ladder's would be. Pure.
public struct DeclaredRung: Sendable, Equatable, Codable {
    public var name: String
    public var width: Int
    public var height: Int
    /// BANDWIDTH, bits per second.
    public var bandwidth: Int
    public var codecs: [String]
    /// FRAME-RATE; nil when the master gives none (the stream's configured rate then).
    public var frameRate: Double?

    public init(name: String, width: Int, height: Int, bandwidth: Int, codecs: [String], frameRate: Double?) {
        self.name = name
        self.width = width
        self.height = height
        self.bandwidth = bandwidth
        self.codecs = codecs
        self.frameRate = frameRate
    }

    /// The bounds a declared rung must keep: those of a configured rung (SidelineConfig's
    /// `width` 16...7680, `height` 16...4320, even; names as `isValidName`), plus a bandwidth
    /// and frame rate a real encoder could send.
    public static let maxRungs = 8
    public static let widths = 16...7680
    public static let heights = 16...4320
    public static let bandwidths = 16_000...200_000_000
    public static let frameRates = 1.0...120.0
    public static let maxCodecs = 4
    /// The most pixels a second the whole ladder may declare (width x height x frame rate,
    /// summed over the rungs; a rung without FRAME-RATE counts at 60): one 2160p60 rung's
    /// worth, well above a phone's or a broadcast encoder's ladder (1080p30 + 720p30 + 360p30
    /// is a fifth of it). Taking a ladder encodes a stand-in segment per rung at its size and
    /// rate, so this bounds that work whatever is declared (issue 33: eight 4320p120 rungs
    /// were taken, 48 times this).
    public static let maxPixelRate = 3840 * 2160 * 60
    /// The frame rate a rung without FRAME-RATE counts at.
    static let assumedFrameRate = 60.0

    /// Pixels a second this rung asks of an encoder.
    var pixelRate: Double { Double(width) * Double(height) * (frameRate ?? Self.assumedFrameRate) }


    /// An RFC 6381 codec string as encoders write them (`avc1.64001f`, `mp4a.40.2`, `ac-3`).
    static func isSafeCodec(_ codec: String) -> Bool {
        !codec.isEmpty && codec.utf8.count <= 32 && codec.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-") }
    }
}

extension IngestMaster {
    /// The ladder this pushed master declares (in the master's order, best first as encoders
    /// list it), or the 400 that says which rung breaks which bound. `playlist`: the media
    /// playlist's name in the layout (`index.m3u8`).
    public static func declaredLadder(_ master: MultivariantPlaylist, playlist: String) -> Result<[DeclaredRung], Refusal> {
        func refused(_ reason: String) -> Result<[DeclaredRung], Refusal> { .failure(.malformed("the master's ladder is refused: \(reason)").forOperators()) }
        guard !master.variants.isEmpty else { return refused("it lists no variant") }
        guard master.variants.count <= DeclaredRung.maxRungs else {
            return refused("it lists \(master.variants.count) variants, at most \(DeclaredRung.maxRungs) are taken")
        }
        var rungs: [DeclaredRung] = []
        var seen: Set<String> = []
        for variant in master.variants {
            // `variantName` takes only `<name>/<playlist>`; the name is then held to the config's rule.
            guard let name = MultivariantPlaylist.variantName(ofURI: variant.uri, playlist: playlist), StoreNames.isUsable(name) else {
                return refused("'\(variant.uri.prefix(80))' is not <variant>/\(playlist) with a variant name of \(StoreNames.rule)")
            }
            guard seen.insert(StoreNames.key(of: name)).inserted else { return refused("variant '\(name)' is listed twice (names that differ only in case are one folder on some disks)") }
            guard let resolution = variant.resolution else { return refused("variant '\(name)' gives no RESOLUTION") }
            guard DeclaredRung.widths.contains(resolution.width), DeclaredRung.heights.contains(resolution.height),
                  resolution.width % 2 == 0, resolution.height % 2 == 0 else {
                return refused("variant '\(name)' is \(resolution.width)x\(resolution.height); even sizes within 16x16...7680x4320 are taken")
            }
            guard DeclaredRung.bandwidths.contains(variant.bandwidth) else {
                return refused("variant '\(name)' has BANDWIDTH \(variant.bandwidth); \(DeclaredRung.bandwidths.lowerBound)...\(DeclaredRung.bandwidths.upperBound) bits/s are taken")
            }
            guard !variant.codecs.isEmpty, variant.codecs.count <= DeclaredRung.maxCodecs, variant.codecs.allSatisfy(DeclaredRung.isSafeCodec) else {
                return refused("variant '\(name)' needs CODECS of at most \(DeclaredRung.maxCodecs) codec strings such as avc1.64001f,mp4a.40.2")
            }
            if let rate = variant.frameRate, !(rate.isFinite && DeclaredRung.frameRates.contains(rate)) {
                return refused("variant '\(name)' has FRAME-RATE \(rate); 1...120 is taken")
            }
            rungs.append(DeclaredRung(name: name, width: resolution.width, height: resolution.height, bandwidth: variant.bandwidth,
                                      codecs: variant.codecs, frameRate: variant.frameRate))
        }
        // Each rung is bounded above (7680 x 4320 x 120), and there are at most eight: the sum is finite.
        let pixelRate = rungs.reduce(0) { $0 + $1.pixelRate }
        guard pixelRate <= Double(DeclaredRung.maxPixelRate) else {
            return refused("its rungs ask for \(Int(pixelRate / 1e6)) million pixels a second (width x height x FRAME-RATE, 60 where none is given), at most \(DeclaredRung.maxPixelRate / 1_000_000) million (one 2160p60 rung) are taken")
        }
        return .success(rungs)
    }

    /// Which ladder a pushed master is held to: the configured one when the config names one
    /// (it wins, and refuses a stranger: `accept`), else the one the stream took before
    /// (`kept`: restored from disk, or the one served) when the master lists nothing outside
    /// it (an encoder that drops its lowest rung on a weak uplink keeps its ladder: the rung
    /// is filled), else the one the master declares, checked.
    public static func ladder(for master: MultivariantPlaylist, configured: [String]?, kept: [DeclaredRung]?, playlist: String) -> Result<LadderChoice, Refusal> {
        if let configured { return .success(.configured(configured)) }
        // Held to the kept ladder as to a configured one (`accept` then decides) when it lists
        // only its rungs: a new declaration is checked only when it names something new.
        let names = master.variants.map { MultivariantPlaylist.variantName(ofURI: $0.uri, playlist: playlist) }
        if let kept, !names.isEmpty, names.allSatisfy({ name in kept.contains { $0.name == name } }) { return .success(.kept(kept)) }
        return declaredLadder(master, playlist: playlist).map { .declared($0) }
    }

    /// Whether a running stream takes the ladder its encoder's master newly declares
    /// (`.declared`, checked): it does once, while the stream holds no footage (`hasFootage`:
    /// an ingest session began, kept across restarts, or the recording holds an entry that is
    /// no fill), so what it recorded on the ladder it served is GAP entries and stand-ins only
    /// and nothing real is orphaned, and while it has taken no declared ladder before
    /// (`tookOne`: taking one encodes a stand-in per rung, so a master that named new rungs
    /// each time made that work again at every upload; issue 33). After that, a master that
    /// names a rung outside `serving` is a 409 that says how to start anew in
    /// `streamDirectory`: the first ladder stays, as a configured one would.
    public static func takesDeclared(_ rungs: [DeclaredRung], serving: [String], hasFootage: Bool, tookOne: Bool = false, streamDirectory: String) -> Result<[DeclaredRung], Refusal> {
        guard hasFootage || tookOne else { return .success(rungs) }
        let why = hasFootage ? "has recorded footage on it" : "took it from an earlier master of its encoder since the server started"
        let declared = rungs.map(\.name).joined(separator: ", ")
        return .failure(Refusal(.conflict, """
            the master declares the ladder \(declared), but this stream serves \(serving.joined(separator: ", ")) and \(why): \
            a stream with no ladder in its config takes its encoder's ladder once, before the first segment. Push those rungs (or a part of them), \
            or start a new recording with the new ladder: stop the server, move \(streamDirectory) away (its recording and ingest/ladder.json), \
            and start it again
            """).forOperators())
    }

    /// Where a pushed stream's ladder comes from.
    public enum LadderChoice: Sendable, Equatable {
        /// The config's rung names: the master is held to them (`accept`).
        case configured([String])
        /// The ladder taken before; the master lists nothing outside it: nothing to keep anew.
        case kept([DeclaredRung])
        /// A ladder the master declares, checked, to be kept (atomically) and taken.
        case declared([DeclaredRung])

        /// The rung names the master is then accepted against.
        public var names: [String] {
            switch self {
            case let .configured(names): names
            case let .kept(rungs), let .declared(rungs): rungs.map(\.name)
            }
        }
    }
}
