import Foundation
import HLSPlaylist
@testable import OriginAccess
import OriginPolicy
import PlayerSessions

/// Every parser that reads bytes from the network, as one fuzz target each. The same file is
/// compiled into the libFuzzer harnesses (scripts/fuzz/run.sh) and into the unit test that
/// replays each target's seed corpus (Tests/Fixtures/fuzz/<target>/), so a crash libFuzzer
/// finds is kept as a seed and replayed in every test run from then on.
///
/// No target may trap, overflow or read out of bounds on any input; what each parser answers
/// is tested elsewhere.
enum FuzzTargets {
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        // Request targets: /live/ and /vod/ paths, /ingest/ paths, and what the access gate reads.
        "request-path": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = OriginPath.parse(text)
            _ = IngestPath.parse(text)
            _ = AccessScope.of(path: Substring(text))
        },
        // The one normalisation of a request path (RequestTarget): never traps, and its
        // canonical form is its own canonical form (so every spelling of it is judged alike).
        "request-target": { bytes in
            guard case let .success(canonical) = bytes.withUnsafeBufferPointer({ RequestTarget.normalise($0) }) else { return }
            precondition(RequestTarget.normalise(canonical.path) == .success(RequestTarget(path: canonical.path, query: nil)), "not idempotent: \(canonical.path)")
        },
        // Query strings: delivery directives, clip and VOD windows, any named parameter.
        "query": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = PlaylistDirectives.parse(query: text)
            _ = TimeWindow.parse(start: QueryParameter.value("start", in: text), end: QueryParameter.value("end", in: text))
            _ = QueryParameter.value("variant", in: text)
        },
        // Range: against a size taken from the first byte, so sizes 0...255 are all tried.
        "byte-range": { bytes in
            let size = Int(bytes.first ?? 0) * 188
            _ = ByteRangeRequest(header: String(decoding: bytes.dropFirst(), as: UTF8.self), size: size)
        },
        // Header values: parameters (Content-Type boundary...), tokens, integers, bearer credentials.
        "header-value": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = HeaderTokens.parameter("boundary", in: text)
            let utf8 = Substring(text).utf8
            _ = HeaderTokens.integer(HeaderTokens.trimmed(utf8))
            _ = HeaderTokens.hasPrefixIgnoringCase(utf8, "gzip")
            _ = BearerToken.value(of: text)
        },
        // CMCD: the first line is the query, each further line one CMCD header.
        "cmcd": { bytes in
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            _ = try? CMCDReport.parse(query: lines.first, headers: Array(lines.dropFirst()))
        },
        // A URL's access credential.
        "access-credential": { bytes in
            _ = AccessCredential.parse(Substring(String(decoding: bytes, as: UTF8.self)))
        },
        // A marker body (JSON) posted by an analyst.
        "marker-body": { bytes in
            let context = MarkerRequest.Context(now: Date(timeIntervalSince1970: 1_800_000_000),
                                                recording: Date(timeIntervalSince1970: 1_799_990_000)...Date(timeIntervalSince1970: 1_800_000_000),
                                                live: true, nextSequence: 3, id: "m3")
            _ = MarkerRequest.marker(from: bytes, context: context)
        },
        // Playlists a mirror reads from its upstream and the ingest reads from a pusher.
        "media-playlist": { bytes in
            _ = try? MediaPlaylist.parseWithServerControl(String(decoding: bytes, as: UTF8.self))
        },
        "multivariant-playlist": { bytes in
            _ = try? MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self))
        },
    ]
}
