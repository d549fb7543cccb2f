import HLSPlaylist
import NIOCore
import OriginPolicy
import OriginState
import Synchronization

extension StreamRegistry {
    /// The one way in: applies `change` to the state (`OriginState.apply`) under the lock,
    /// renders (and compresses) what it asks for outside it, stores each rendering unless a
    /// newer version was stored meanwhile, and answers the requests held for what it lists.
    public func apply(_ change: OriginChange) {
        let now = clock()
        let jobs = published.withLock { published -> [Job] in
            let effects = published.state.apply(change, now: now)
            if case let .register(stream, _, _, _) = change, let registered = published.state.streams[stream]?.registered {
                published.served[stream] = Served(floor: registered)
            }
            if case .steering = change {
                // A few dozen bytes, rendered when the pathways' order changes, not per request.
                published.steeringManifest = published.state.steering.map {
                    (ByteBuffer(string: SteeringPolicy.manifest(priority: $0.priority, timeToLive: $0.timeToLive)), $0.timeToLive)
                }
            }
            return effects.map { Job($0, change: change, state: published.state) }
        }
        for job in jobs { carry(job) }
    }

    /// One effect with the values it needs, taken under the lock: rendered outside it.
    enum Job {
        /// What a variant's version is rendered from: the live playlist the state holds, whose
        /// text its writer keeps as it grows, or, with markers, the recording made whole once
        /// per version, outside the lock; and its edge with rendition reports (Low-Latency HLS).
        case variant(stream: String, variant: String, version: Int, markers: [Marker], playlist: LiveMediaPlaylist?, edge: LowLatencyEdge?, wake: Bool)
        case iFrames(stream: String, variant: String, version: Int, playlist: LiveMediaPlaylist?)
        case master(stream: String, version: Int, MultivariantPlaylist?)
        case release(stream: String)
        case part(stream: String, variant: String, sequence: Int, index: Int, version: Int, bytes: [UInt8])

        init(_ effect: OriginEffect, change: OriginChange, state: OriginState) {
            let publication: OriginChange.Publication? = if case let .publish(p) = change { p } else { nil }
            switch effect {
            case let .renderVariant(stream, variant, version, markers, wake):
                // Values only: nothing is rendered under the lock.
                let held = state.streams[stream]?.variants[variant]
                var edge = held?.edge
                edge?.reports = RenditionReports.reports(for: variant, of: stream, in: state)
                self = .variant(stream: stream, variant: variant, version: version, markers: markers, playlist: held?.live, edge: edge, wake: wake)
            case let .renderIFrames(stream, variant, version):
                self = .iFrames(stream: stream, variant: variant, version: version, playlist: publication?.iFrames)
            case let .renderMaster(stream, version):
                self = .master(stream: stream, version: version, state.streams[stream]?.masterPlaylist)
            case let .releaseHeld(stream):
                self = .release(stream: stream)
            case let .keepPart(stream, variant, sequence, index, version):
                let bytes: [UInt8] = if case let .part(_, _, part, _) = change { part.bytes } else { [] }
                self = .part(stream: stream, variant: variant, sequence: sequence, index: index, version: version, bytes: bytes)
            }
        }
    }

    func carry(_ job: Job) {
        switch job {
        case let .variant(stream, variant, version, markers, playlist, edge, wake):
            guard let live = playlist else { return }
            // The text and gzip up to the last entry, from the version before (a part's
            // version differs only after it: ServedMediaPlaylist.KeptPrefix).
            let kept = edge == nil ? nil : published.withLock { $0.served[stream]?.variants[variant]?.playlist?.prefix }
            let rendered = ServedMediaPlaylist(live, markers: markers, offer: offer, tag: nextTag(), edge: edge, kept: kept)
            let stored = store(stream: stream, version: version) { served in
                guard (served.variants[variant]?.version ?? 0) < version else { return false }
                served.variants[variant, default: ServedVariant()].playlist = rendered
                served.variants[variant]!.version = version
                // Parts of segments now listed are served from their files.
                served.variants[variant]!.openParts.removeAll { $0.sequence <= rendered.lastSequence }
                return true
            }
            if stored && wake { waiters.wake(.init(stream: stream, variant: variant), listed: Self.listed(rendered)) }
        case let .iFrames(stream, variant, version, playlist):
            let rendered = playlist.map { ServedMediaPlaylist($0, offer: offer, tag: nextTag()) }
            let stored = store(stream: stream, version: version) { served in
                guard (served.variants[variant]?.iFramesVersion ?? 0) < version else { return false }
                served.variants[variant, default: ServedVariant()].iFrames = rendered
                served.variants[variant]!.iFramesVersion = version
                return true
            }
            if stored, let rendered { waiters.wake(.init(stream: stream, variant: variant, iFrames: true), listed: Self.listed(rendered)) }
        case let .master(stream, version, master):
            guard let master else { return }
            let bytes = RenderedPlaylist(text: master.render(), tag: nextTag())
            var limited: [String: RenderedPlaylist] = [:]
            for variant in master.variantNames where limited[variant] == nil {
                if let one = master.limited(toVariant: variant) { limited[variant] = RenderedPlaylist(text: one.render(), tag: nextTag()) }
            }
            store(stream: stream, version: version) { served in
                guard served.masterVersion < version else { return false }
                served.master = bytes
                served.limitedMasters = limited
                served.masterVersion = version
                return true
            }
        case let .release(stream):
            waiters.wakeAll(stream: stream)
        case let .part(stream, variant, sequence, index, version, bytes):
            // Stored before the version that lists it (its effect comes first): a player that
            // reads the part's URI finds its bytes. A part of a segment a newer version lists
            // already is served from the file: not kept.
            let buffer = ByteBuffer(bytes: bytes)
            store(stream: stream, version: version) { served in
                guard (served.variants[variant]?.playlist?.lastSequence ?? -1) < sequence else { return false }
                served.variants[variant, default: ServedVariant()].openParts.removeAll { $0.sequence != sequence }
                served.variants[variant]!.openParts.append(.init(sequence: sequence, index: index, bytes: buffer))
                return true
            }
        }
    }

    /// Stores a rendering made for `version` of a stream still registered since before it;
    /// `update` says whether it was newer than what it would replace.
    @discardableResult
    private func store(stream: String, version: Int, _ update: (inout Served) -> Bool) -> Bool {
        published.withLock { published in
            guard published.served[stream] != nil, published.served[stream]!.floor <= version else { return false }
            return update(&published.served[stream]!)
        }
    }

    /// What a held request waits for: the last sequence number listed, or everything once the
    /// playlist never changes again.
    /// What a held request waits for, as a position (`PublishedEdge.position`): the last part or
    /// segment listed, or everything once the playlist never changes again.
    static func listed(_ served: ServedMediaPlaylist) -> Int { served.complete ? Int.max : served.edge.position }
}
