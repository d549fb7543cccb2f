import HLSPlaylist
import Synchronization

extension StreamRegistry {
    /// Renders a variant's new media playlist version with the stream's markers (outside the
    /// lock), then applies `update` under the lock. A marker added or removed while it rendered
    /// makes it render again, so no version is stored with markers older than the stream's.
    @discardableResult
    func storeVersion(stream: String, _ playlist: LiveMediaPlaylist, _ update: (inout Stream, ServedMediaPlaylist) -> Void) -> ServedMediaPlaylist {
        storeVersion(stream: stream, rendering: { render(playlist, markers: $0) }, update)
    }

    /// `storeVersion` with the rendering given: the seam a test uses to add a marker while a
    /// version renders.
    @discardableResult
    func storeVersion(stream: String, rendering render: ([Marker]) -> ServedMediaPlaylist, _ update: (inout Stream, ServedMediaPlaylist) -> Void) -> ServedMediaPlaylist {
        while true {
            let (markers, version) = streams.withLock { ($0[stream]?.markers ?? [], $0[stream]?.markerVersion ?? 0) }
            let rendered = render(markers)
            let stored = streams.withLock { streams -> Bool in
                guard let current = streams[stream]?.markerVersion else { return true }
                guard current == version else { return false }
                // Changed where it is stored: a copy taken out and put back would share the
                // variant's segment index, and the first change would copy the whole index.
                update(&streams[stream]!, rendered)
                return true
            }
            if stored { return rendered }
        }
    }

    /// Replaces a stream's markers and renders every variant's media playlist again with them.
    /// The caller has kept them (`markers.json`) first: what a player sees survives a restart.
    public func setMarkers(stream: String, _ markers: [Marker]) {
        let current = streams.withLock { streams -> [String: ServedMediaPlaylist] in
            guard streams[stream] != nil else { return [:] }
            streams[stream]!.markers = markers
            streams[stream]!.markerVersion += 1
            return streams[stream]!.variants.compactMapValues(\.playlist)
        }
        for (variant, served) in current {
            // Replaces the version only if no publish came in between (a publish renders with
            // the new markers itself).
            let rendered = storeVersion(stream: stream, LiveMediaPlaylist(served.playlist)) { entry, rendered in
                if entry.variants[variant]?.playlist?.full.etag == served.full.etag { entry.variants[variant]?.playlist = rendered }
            }
            wakeWaiters(stream: stream, variant: variant, playlist: rendered, iFrames: nil)
        }
    }
}
