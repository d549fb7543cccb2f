import Foundation
import HLSPlaylist
import IngestPolicy
import MPEGTS
@testable import OriginAccess
import OriginPolicy
import PlayerSessions
import SidelineCore
import StreamMirroring
import StreamPushing

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
        // A request head the origin may answer from the socket's bytes (SimpleRequestHead):
        // never traps, never claims more bytes than it was given, and gives the same verdict
        // whether the bytes arrive at once or as any prefix first (a prefix is never handed on
        // when the whole is simple).
        "request-head": { bytes in
            let whole = bytes.withUnsafeBytes { SimpleRequestHead.scan($0) }
            if case let .complete(_, length) = whole {
                precondition(length <= bytes.count && length <= SimpleRequestHead.maxLength, "claimed \(length) of \(bytes.count) bytes")
                let cut = Int(bytes.first ?? 0) % max(1, length)
                let prefix = bytes.prefix(cut).withUnsafeBytes { SimpleRequestHead.scan($0) }
                precondition(prefix == .incomplete, "a prefix of \(cut) bytes of a simple head scans as \(prefix)")
                let again = bytes.prefix(length).withUnsafeBytes { SimpleRequestHead.scan($0) }
                precondition(again == whole, "the head alone scans differently")
            }
        },
        // Query strings: delivery directives, clip and VOD windows, any named parameter.
        "query": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            _ = PlaylistDirectives.parse(query: text)
            _ = TimeWindow.parse(start: QueryParameter.value("start", in: text), end: QueryParameter.value("end", in: text))
            _ = QueryParameter.value("variant", in: text)
        },
        // X-Forwarded-For behind a trusted edge (TrustedProxies) and the addresses and ranges
        // it and server.trusted_proxies are read with (IPAddressText, IPAddressRange): never
        // trap, and an address read is one a range of itself holds.
        "forwarded-for": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            let proxies = TrustedProxies([IPAddressRange("10.0.0.0/8")!, IPAddressRange("fd00::/8")!])
            _ = proxies.client(peer: IPAddressText.bytes(of: "10.0.0.5"), forwardedFor: text)
            if let address = IPAddressText.bytes(of: text) {
                precondition(address.count == 16, "an address of \(address.count) bytes")
                precondition(IPAddressRange(text)?.contains(address) == true, "\(text) is not in its own range")
            }
            _ = IPAddressRange(text)
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
            _ = try? MediaPlaylist.parseLive(String(decoding: bytes, as: UTF8.self))
        },
        "multivariant-playlist": { bytes in
            _ = try? MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self))
        },
        // Parse then render: every number a parsed playlist carries goes through the decimal
        // formatting and the date arithmetic of each form the origin and a mirror serve.
        "playlist-render": { bytes in FuzzInputs.render(String(decoding: bytes, as: UTF8.self)) },
        // Any Double (its 8 bytes) and any number of places through the formats that render them.
        "decimal-format": { bytes in FuzzInputs.formatDecimals(bytes) },
        // A segment pushed to the ingest: the check, the tables' order, as sent and with every
        // 188th byte made a sync byte (so the fuzzer gets past the packet framing).
        "pushed-segment": { bytes in
            for segment in [bytes, FuzzInputs.framed(bytes)] {
                _ = PushedSegmentCheck.inspect(segment)
                _ = PushedSegmentCheck.inspect(segment, announced: bytes.count)
                _ = TransportStreamHeaders.patFirst(segment)
            }
        },
        // Restamping (the ingest moves each pushed segment onto the stream's timeline): the
        // first 8 bytes are the offset, the next the copy count, the rest the segment.
        "restamp": { bytes in
            let offset = FuzzInputs.integer(bytes.prefix(8))
            let copy = Int(Int8(bitPattern: bytes.dropFirst(8).first ?? 0))
            for segment in [Array(bytes.dropFirst(9)), FuzzInputs.framed(Array(bytes.dropFirst(9)))] {
                _ = try? TransportStreamRestamp.restamp(segment, by: offset, copy: copy)
                _ = TransportStreamRestamp.firstPTS(segment)
            }
        },
        // A segment a mirror downloaded: the first byte picks the announced Content-Length.
        "mirror-segment": { bytes in
            let url = URL(fileURLWithPath: "/live/main/720p/000000.ts")
            let body = Array(bytes.dropFirst())
            let announced: Int? = bytes.first.map { $0 == 0 ? nil : body.count + Int(Int8(bitPattern: $0)) } ?? nil
            for segment in [body, FuzzInputs.framed(body)] {
                _ = UpstreamRequests.segmentOutcome(UpstreamAnswer(status: 200, body: segment, announcedLength: announced), url: url)
            }
        },
        // The ingest's ledger fed the playlists of one input (NUL-separated, alternating
        // variants), each with its segments received first, as an encoder pushes them.
        "ingest-ledger": { bytes in FuzzInputs.ledger(bytes) },
        // A pushed stream's metadata body (JSON or the field app's text).
        "stream-metadata": { bytes in
            _ = StreamMetadata.parse(bytes)
            _ = StreamMetadata.combining(file: bytes, title: nil, description: "d", keywords: nil)
        },
        // A multipart/form-data upload to /ingest/: the first line is the Content-Type, the rest
        // the body, through the same call the ingest route makes.
        "multipart-form": { bytes in
            let split = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            _ = MultipartUpload.file(in: Array(bytes[split...].dropFirst()), contentType: String(decoding: bytes[..<split], as: UTF8.self))
        },
        // A mirror's upstream media playlist through the mirror's pure decisions: what it lists
        // and fetches, the conflict check, the next reload, each mode's form.
        "mirror-playlist": { bytes in FuzzInputs.mirror(String(decoding: bytes, as: UTF8.self)) },
        // An upstream's angle-set master, read by a mirror for its angles.
        "set-master-angles": { bytes in
            let angles = SetMasterAngles.angles(inMaster: String(decoding: bytes, as: UTF8.self)) { name in
                !name.isEmpty && name.count <= 64 && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }
            }
            precondition((angles?.count ?? 0) <= SetMasterAngles.maximumAngles)
        },
        // Another box's answers about an angle it serves (issue 35, `boxes`): the bytes as its
        // stream listing and as the angle's master alike.
        "remote-angle": { bytes in
            let answer = UpstreamAnswer(status: 200, body: bytes)
            let said = RemoteAngleReading.reading(stream: "goal", listing: answer, master: answer, before: nil)
            precondition(said.title.unicodeScalars.count <= RemoteAngleReading.maximumTitleLength)
            // The same bytes as a locked angle's own entry, behind a listing that locks it.
            let locked = UpstreamAnswer(status: 200, body: Array(#"{"streams":[],"locked":[{"id":"goal"}]}"#.utf8))
            let entry = RemoteAngleReading.reading(stream: "goal", listing: locked, info: answer, master: answer, before: said)
            precondition(entry.title.unicodeScalars.count <= RemoteAngleReading.maximumTitleLength && entry.isPrivate)
            _ = RemoteAngleReading.namesAlsoHere(in: answer, local: ["goal", "wide"])
            _ = RemoteAngleReading.frameRateMismatch(stream: "goal", said: entry, box: "http://b", expected: 30)
        },
        // A pushed master, as a stream with no configured ladder takes it: parsed, its ladder
        // declared, chosen against a configured and a kept ladder, and taken.
        "ingest-master": { bytes in
            guard case let .success(master) = IngestMaster.parse(bytes) else { return }
            guard case let .success(rungs) = IngestMaster.declaredLadder(master, playlist: "master.m3u8") else { return }
            _ = IngestMaster.ladder(for: master, configured: nil, kept: nil, playlist: "master.m3u8")
            _ = IngestMaster.ladder(for: master, configured: ["360p", "180p"], kept: rungs, playlist: "master.m3u8")
            _ = IngestMaster.takesDeclared(rungs, serving: ["720p"], hasFootage: false, streamDirectory: "/data/roof")
        },
    ]
}
