import HLSPlaylist
import OriginPolicy

/// What a pushed master (`/ingest/{stream}/master.m3u8`) may name, decided over plain values:
/// every variant it lists must be a rung of the stream's configured ladder (the server renders
/// players' masters from its config, so a rung it does not know could never be served), at
/// least one rung must be listed, and the configured rungs it leaves out are named so the
/// server fills them like a failed variant's until they come again (`sideline push` drops the
/// lowest on a weak uplink). Pure.
public struct IngestMaster: Sendable, Equatable {
    /// The ladder's rungs the master lists, in the master's order.
    public var pushed: [String]
    /// The configured rungs it leaves out, in the ladder's order.
    public var notPushed: [String]

    public init(pushed: [String], notPushed: [String]) {
        self.pushed = pushed
        self.notPushed = notPushed
    }

    /// What the ingest answers when it takes the master.
    public var receipt: String {
        "master taken: \(pushed.joined(separator: ", "))" + (notPushed.isEmpty ? "" : "; not pushed: \(notPushed.joined(separator: ", "))")
    }

    /// The uploaded bytes as a master playlist, or the 400 that says why they are not one.
    public static func parse(_ body: [UInt8]) -> Result<MultivariantPlaylist, Refusal> {
        guard let text = String(validating: body, as: UTF8.self) else { return .failure(.malformed("the master playlist is not UTF-8 text").forOperators()) }
        do {
            return .success(try MultivariantPlaylist.parse(text))
        } catch {
            return .failure(.malformed("the master playlist cannot be read: \(error)").forOperators())
        }
    }

    /// The master taken against `ladder` (the configured rung names, best first), or the 400
    /// that names what it lists outside the ladder, or that it lists none of it. `playlist`: the
    /// media playlist's name in the layout (`index.m3u8`).
    public static func accept(_ master: MultivariantPlaylist, ladder: [String], playlist: String) -> Result<IngestMaster, Refusal> {
        let configured = Set(ladder)
        let names = master.variants.map { MultivariantPlaylist.variantName(ofURI: $0.uri, playlist: playlist) }
        let unknown = zip(master.variants, names).filter { $1.map { !configured.contains($0) } ?? true }.map(\.0.uri)
        guard unknown.isEmpty else {
            return .failure(.malformed("the master lists \(unknown.joined(separator: ", ")), not in this stream's ladder (\(ladder.joined(separator: ", "))): push the variants the server's config names").forOperators())
        }
        let pushed = names.compactMap { $0 }
        guard !pushed.isEmpty else {
            return .failure(.malformed("the master lists none of this stream's variants (\(ladder.joined(separator: ", ")))").forOperators())
        }
        return .success(IngestMaster(pushed: pushed, notPushed: ladder.filter { !pushed.contains($0) }))
    }

    /// What each listed rung of `ladder` says it is (CODECS and RESOLUTION; `frameRate` when
    /// it gives none), for those that say both, with codec strings as a declared ladder's are
    /// held to (at most `DeclaredRung.maxCodecs`, each a plain RFC 6381 string). Taken even
    /// from a master refused for another variant, as the ingest always has.
    public static func formats(in master: MultivariantPlaylist, ladder: [String], playlist: String, frameRate: Double) -> [(variant: String, format: VariantFormat)] {
        master.variants.compactMap { variant in
            guard let name = MultivariantPlaylist.variantName(ofURI: variant.uri, playlist: playlist), ladder.contains(name),
                  let resolution = variant.resolution, !variant.codecs.isEmpty,
                  variant.codecs.count <= DeclaredRung.maxCodecs, variant.codecs.allSatisfy(DeclaredRung.isSafeCodec) else { return nil }
            return (name, VariantFormat(codecs: variant.codecs, width: resolution.width, height: resolution.height, frameRate: variant.frameRate ?? frameRate))
        }
    }
}
