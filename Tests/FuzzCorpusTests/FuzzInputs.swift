import Foundation
import HLSPlaylist
import MPEGTS
import StreamMirroring
import StreamPushing

/// The longer fuzz targets of `FuzzTargets`: how one input drives a parser and what consumes
/// its values. Compiled with FuzzTargets.swift into the libFuzzer harnesses and the unit test.
enum FuzzInputs {
    /// Little-endian bytes as an Int64 (missing bytes are zero).
    static func integer(_ bytes: some Collection<UInt8>) -> Int64 {
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        return Int64(bitPattern: value)
    }

    /// `bytes` cut to whole 188-byte packets, each starting with the sync byte: what gets a
    /// fuzzer's input past SegmentCheck's framing to the header readers behind it.
    static func framed(_ bytes: [UInt8]) -> [UInt8] {
        var framed = Array(bytes.prefix(bytes.count - bytes.count % TransportStreamPacket.size))
        for offset in stride(from: 0, to: framed.count, by: TransportStreamPacket.size) { framed[offset] = TransportStreamPacket.syncByte }
        return framed
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func formatDecimals(_ bytes: [UInt8]) {
        let value = Double(bitPattern: UInt64(bitPattern: integer(bytes.prefix(8))))
        let places = Int(bytes.dropFirst(8).first ?? 3) % 12
        _ = DecimalFormat.fixed(value, places: places)
        _ = DecimalFormat.compact(value)
        _ = ProgramDateTime.format(Date(timeIntervalSince1970: value))
        let text = String(decoding: bytes.dropFirst(9), as: UTF8.self)
        if let parsed = Double(text) {
            _ = DecimalFormat.fixed(parsed, places: places)
            _ = DecimalFormat.compact(parsed)
        }
        if let date = ProgramDateTime.parse(Substring(text)) { _ = ProgramDateTime.format(date) }
    }

    static func render(_ text: String) {
        if let (playlist, control) = try? MediaPlaylist.parseWithServerControl(text) {
            let offered = ServerControl(canSkipUntil: 12, canSkipDateRanges: true, canBlockReload: true)
            _ = playlist.render(control: control ?? offered)
            _ = playlist.renderDelta(control: control ?? offered, skippingDateRanges: true)
            _ = playlist.renderDelta(control: offered, skippingDateRanges: false)
            _ = playlist.vodRendition.render()
            _ = playlist.applyingReplacements().render()
            _ = playlist.applyingReplacements(of: playlist).render()
            _ = playlist.replaceableEntries
            _ = LiveMediaPlaylist(playlist).text(control: offered)
            _ = playlist.segmentsExceedingTargetDuration
            _ = PlaylistTimes(playlist).dateSpan
            // A low-latency edge as read (parts by any sequence number, a hint, reports), through
            // both renderers: the full one and the incremental one, which slices the text it keeps.
            if let edge = (try? MediaPlaylist.parseLive(text))?.edge {
                _ = playlist.render(control: offered, edge: edge)
                _ = playlist.renderDelta(control: offered, skippingDateRanges: true, edge: edge)
                _ = LiveMediaPlaylist(playlist).text(control: offered, edge: edge)
            }
            let marker = Marker(id: "m", label: "goal", time: now, duration: 12, created: now, listedBefore: playlist.mediaSequence + 1)
            _ = playlist.placingByTime([marker]).render()
            _ = playlist.placingLive([marker]).render()
            _ = [now, .distantPast, .distantFuture].map(PlaylistTimes(playlist).offset(of:))
            for window in [TimeWindow(start: .offset(1), end: .offset(10)), TimeWindow(start: .date(now), end: nil), TimeWindow(start: .offset(1e300), end: nil)] {
                _ = playlist.vodRendition(covering: window).map { $0.render() }
            }
            _ = (0..<min(playlist.segments.count, 4)).map { PlaylistTimes(playlist).programDateTime(ofEntry: $0) }
        }
        if let master = try? MultivariantPlaylist.parse(text) {
            _ = master.render()
            _ = master.carriesAudio
            if let first = master.variants.first, let name = MultivariantPlaylist.variantName(ofURI: first.uri, playlist: "index.m3u8") {
                _ = master.limited(toVariant: name)?.render()
            }
        }
    }

    static func mirror(_ text: String) {
        guard let (upstream, control) = try? MediaPlaylist.parseWithServerControl(text) else { return }
        let uris = upstream.segments.map(\.uri)
        let held = Set(uris.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        let lost = Set(uris.enumerated().filter { $0.offset % 3 == 1 }.map(\.element))
        let listing = MirrorListing(upstream: upstream, held: held, lost: lost)
        _ = listing.playlist.render()
        _ = listing.iFrames(from: upstream).render()
        _ = listing.downloads.map { UpstreamRequests.isPlainFileName($0.uri) }
        _ = MirrorListing.conflict(mirrored: listing.playlist, upstream: upstream)
        _ = MirrorListing.conflict(mirrored: upstream, upstream: listing.playlist)
        let media = URL(fileURLWithPath: "/live/main/720p/index.m3u8")
        _ = UpstreamRequests.reload(media, after: upstream, canBlockReload: control?.canBlockReload ?? true)
        _ = UpstreamRequests.reloadTimeout(targetDuration: upstream.targetDuration)
        _ = UpstreamRequests.downloadTimeout(targetDuration: upstream.targetDuration)
        _ = UpstreamRequests.pollInterval(targetDuration: upstream.targetDuration)
        for mode in [MirrorFreshness.Mode.following, .offline, .ended] { _ = MirrorFreshness.rendition(of: listing.playlist, in: mode).render() }
        let facts = MirrorFreshness.Facts(upstreamEnded: upstream.endList, caughtUp: listing.caughtUp, lastAdvance: 1, lastContact: 2, since: 0,
                                          targetDuration: upstream.targetDuration, now: 10)
        _ = MirrorFreshness().mode(facts)
    }

    static func ledger(_ bytes: [UInt8]) {
        var ledger = IngestLedger(settings: .init(variants: ["720p", "360p"], segmentDuration: 2, slotStart: { Double($0) * 2 }, timestampOrigin: 126_000))
        var slot = 40
        let playlists = bytes.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        for (index, text) in playlists.enumerated() {
            let variant = index % 2 == 0 ? "720p" : "360p"
            // The segments it lists are received first, with the durations it gives them.
            if let playlist = try? MediaPlaylist.parse(text) {
                for (position, entry) in playlist.segments.enumerated() where !ledger.pending(variant).contains(entry.uri) {
                    let inspection = PushedSegmentCheck.Inspection(videoPID: 256, duration: entry.duration,
                                                                   firstPTS: 900_000 + Int64(position) * 180_000, keyframeEnd: 188 * 4)
                    _ = ledger.segmentReceived(variant: variant, name: entry.uri, inspection: inspection)
                }
            }
            var result = ledger.playlistReceived(variant: variant, text: text, now: now, sessionSlot: nil)
            if case .success(.beginsSession) = result {
                slot += 1
                result = ledger.playlistReceived(variant: variant, text: text, now: now, sessionSlot: slot)
            }
            if case let .failure(rejection) = result { _ = rejection.description }
            // Once in a run, the server restarts: what it kept of the session is restored.
            if index == 1 { ledger = IngestLedger(settings: ledger.settings, restoring: ledger.persisted) }
        }
    }
}
