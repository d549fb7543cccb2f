import HLSPlaylist
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
            return effects.map { Job($0, change: change, state: published.state) }
        }
        for job in jobs { carry(job) }
    }

    /// One effect with the values it needs, taken under the lock: rendered outside it.
    enum Job {
        /// What a variant's version is rendered from: a publication's playlist, whose text its
        /// writer keeps as it grows, or the recording the state holds (new markers), whose text
        /// is made whole when it is rendered, outside the lock.
        enum Source {
            case live(LiveMediaPlaylist)
            case recorded(MediaPlaylist)
        }

        case variant(stream: String, variant: String, version: Int, markers: [Marker], playlist: Source?, wake: Bool)
        case iFrames(stream: String, variant: String, version: Int, playlist: LiveMediaPlaylist?)
        case master(stream: String, version: Int, MultivariantPlaylist?)
        case release(stream: String)

        init(_ effect: OriginEffect, change: OriginChange, state: OriginState) {
            let publication: OriginChange.Publication? = if case let .publish(p) = change { p } else { nil }
            switch effect {
            case let .renderVariant(stream, variant, version, markers, fromPublication, wake):
                // Values only: nothing is rendered under the lock.
                let playlist: Source? = fromPublication ? publication.map { .live($0.playlist) }
                    : state.streams[stream]?.variants[variant]?.recording.map { .recorded($0) }
                self = .variant(stream: stream, variant: variant, version: version, markers: markers, playlist: playlist, wake: wake)
            case let .renderIFrames(stream, variant, version):
                self = .iFrames(stream: stream, variant: variant, version: version, playlist: publication?.iFrames)
            case let .renderMaster(stream, version):
                self = .master(stream: stream, version: version, state.streams[stream]?.masterPlaylist)
            case let .releaseHeld(stream):
                self = .release(stream: stream)
            }
        }
    }

    func carry(_ job: Job) {
        switch job {
        case let .variant(stream, variant, version, markers, playlist, wake):
            let live: LiveMediaPlaylist
            switch playlist {
            case let .live(kept)?: live = kept
            case let .recorded(recording)?: live = LiveMediaPlaylist(recording)
            case nil: return
            }
            let rendered = ServedMediaPlaylist(live, markers: markers, offer: offer, tag: nextTag())
            let stored = store(stream: stream, version: version) { served in
                guard (served.variants[variant]?.version ?? 0) < version else { return false }
                served.variants[variant, default: ServedVariant()].playlist = rendered
                served.variants[variant]!.version = version
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
    static func listed(_ served: ServedMediaPlaylist) -> Int { served.complete ? Int.max : served.lastSequence }
}
