import HLSPlaylist
import OriginPolicy

extension OriginState {
    /// The one way in: takes `change` in and says what must be rendered again and which held
    /// requests to answer. `now` is the registry's clock (when a variant last published). A
    /// change for a stream or variant the state does not hold changes nothing (a restore
    /// brings its variant in whole), and asks for nothing.
    @discardableResult
    public mutating func apply(_ change: OriginChange, now: Double) -> [OriginEffect] {
        switch change {
        case let .register(stream, title, variants, targetDuration):
            revision += 1
            streams[stream] = Stream(title: title, phase: .starting, targetDuration: targetDuration, registered: revision,
                                     variants: Dictionary(variants.map { ($0, Variant()) }, uniquingKeysWith: { first, _ in first }), variantOrder: variants)
            return []
        case let .publish(publication):
            return publish(publication, now: now)
        case let .master(stream, master):
            guard streams[stream] != nil else { return [] }
            streams[stream]!.masterPlaylist = master
            revision += 1
            streams[stream]!.masterVersion = revision
            return [.renderMaster(stream: stream, version: streams[stream]!.masterVersion)]
        case let .metadata(stream, title, description, keywords):
            streams[stream]?.title = title
            streams[stream]?.description = description
            streams[stream]?.keywords = keywords
            return []
        case let .phase(stream, phase):
            guard streams[stream] != nil else { return [] }
            streams[stream]!.phase = phase
            return phase == .ended || phase == .removed ? [.releaseHeld(stream: stream)] : []
        case let .markers(stream, markers):
            return place(markers, in: stream)
        case let .writeError(stream, variant, reason):
            streams[stream]?.variants[variant]?.status.writeError = reason
            return []
        case let .effort(stream, variant, step, name):
            streams[stream]?.variants[variant]?.status.effortStep = step
            streams[stream]?.variants[variant]?.status.effortName = step > 0 ? name : nil
            return []
        case let .failure(stream, variant, reason):
            streams[stream]?.variants[variant]?.status.failure = reason
            return []
        case let .part(stream, variant, part, edge):
            return publish(part, edge: edge, in: stream, variant: variant, now: now)
        case let .steering(priority, timeToLive):
            steering = Steering(priority: priority, timeToLive: timeToLive)
            return []
        case let .remoteAngle(stream, title, state, master):
            apply(remote: stream, title: title, state: state, master: master)
            return []
        }
    }

    /// A part of the segment being made: a new version of the variant's playlist that lists it,
    /// rendered from the recording as it is (`live`) with the new edge (`now`: unused, as the stale
    /// rule counts entries, not parts: `FailureDrillEndToEndTests`). A part for no recording, or not of the
    /// segment after the last entry, changes nothing: a part never stands where another should.
    private mutating func publish(_ part: OriginChange.Part, edge: LowLatencyEdge, in name: String, variant: String, now: Double) -> [OriginEffect] {
        guard let live = streams[name]?.variants[variant]?.live, !live.playlist.endList,
              part.sequence == live.playlist.lastSequence + 1,
              streams[name]!.variants[variant]!.parts.opened(part.sequence, index: part.index, size: part.size) else { return [] }
        streams[name]!.variants[variant]!.edge = edge
        revision += 1
        streams[name]!.variants[variant]!.version = revision
        // The bytes first: a player that reads the part's URI in the new version finds them.
        return [.keepPart(stream: name, variant: variant, sequence: part.sequence, index: part.index, version: revision),
                .renderVariant(stream: name, variant: variant, version: revision, markers: streams[name]!.markers, wake: true)]
    }

    /// A publication, changed in place (`streams[s]!.variants[v]`), so the variant's segment
    /// index is never copied.
    private mutating func publish(_ publication: OriginChange.Publication, now: Double) -> [OriginEffect] {
        let (name, variant) = (publication.stream, publication.variant)
        guard streams[name] != nil else { return [] }
        var restoring = false
        switch publication.source {
        case let .restored(segments, gaps):
            streams[name]!.variants[variant] = Variant(segments: segments, gaps: gaps, status: VariantStatus(restoring: segments))
            restoring = true
        case let .segment(segment, file):
            guard streams[name]!.variants[variant] != nil else { return [] }
            streams[name]!.variants[variant]!.segments[segment] = file
            streams[name]!.variants[variant]!.status.recorded.add(bytes: file.size, duration: file.duration)
            streams[name]!.variants[variant]!.status.lastPublished = now
            if streams[name]!.phase == .starting { streams[name]!.phase = .live }
        case let .replacement(segment, file):
            streams[name]!.variants[variant]?.segments[segment] = file
        case let .mirrored(segments, gaps):
            guard streams[name]!.variants[variant] != nil else { return [] }
            for (segment, file) in segments {
                streams[name]!.variants[variant]!.segments[segment] = file
                streams[name]!.variants[variant]!.status.recorded.add(bytes: file.size, duration: file.duration)
            }
            streams[name]!.variants[variant]!.gaps.formUnion(gaps)
            if !segments.isEmpty || !gaps.isEmpty { streams[name]!.variants[variant]!.status.lastPublished = now }
        case let .gap(segment):
            streams[name]!.variants[variant]?.gaps.insert(segment)
            streams[name]!.variants[variant]?.status.lastPublished = now
        case let .gaps(segments):
            streams[name]!.variants[variant]?.gaps.formUnion(segments)
            streams[name]!.variants[variant]?.status.lastPublished = now
        case .playlists:
            break
        }
        guard streams[name]!.variants[variant] != nil else { return [] }
        if case .replacement = publication.source {
            // A late segment taken into the recording changes an entry, never adds one; the live
            // edge stays. Its writer runs outside the slots' lock: a playlist shorter than the one
            // held is older, and the next version brings the replacement with whatever came since.
            let held = streams[name]!.variants[variant]!.live?.playlist.segments.count ?? 0
            if publication.playlist.playlist.segments.count >= held { streams[name]!.variants[variant]!.live = publication.playlist }
        } else {
            streams[name]!.variants[variant]!.live = publication.playlist
            streams[name]!.variants[variant]!.edge = publication.edge
            streams[name]!.variants[variant]!.parts.listed(through: publication.playlist.playlist.lastSequence, edge: publication.edge)
        }
        revision += 1
        streams[name]!.variants[variant]!.version = revision
        var effects: [OriginEffect] = [.renderVariant(stream: name, variant: variant, version: streams[name]!.variants[variant]!.version,
                                                      markers: streams[name]!.markers, wake: !restoring)]
        // A restore replaces the I-frame playlist too: with none when it brings none.
        if publication.iFrames != nil || restoring {
            streams[name]!.variants[variant]!.iFrames = publication.iFrames?.playlist
            revision += 1
            streams[name]!.variants[variant]!.iFramesVersion = revision
            effects.append(.renderIFrames(stream: name, variant: variant, version: streams[name]!.variants[variant]!.iFramesVersion))
        }
        return effects
    }

    /// New markers: every variant with a recording is rendered again with them, in ladder order.
    private mutating func place(_ markers: [Marker], in name: String) -> [OriginEffect] {
        guard streams[name] != nil else { return [] }
        streams[name]!.markers = markers
        var effects: [OriginEffect] = []
        let order = streams[name]!.variantOrder + streams[name]!.variants.keys.filter { !streams[name]!.variantOrder.contains($0) }.sorted()
        for variant in order where streams[name]!.variants[variant]?.recording != nil {
            revision += 1
            streams[name]!.variants[variant]!.version = revision
            effects.append(.renderVariant(stream: name, variant: variant, version: streams[name]!.variants[variant]!.version,
                                          markers: markers, wake: true))
        }
        return effects
    }
}
