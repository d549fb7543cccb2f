import OriginRegistry
import OriginState
import SidelineConfig

extension Array where Element == StreamRegistry.AngleSet {
    /// The config's `angle_sets`, as the registry serves them: every set's angles share the
    /// config's one `segment_duration`.
    public init(_ settings: SidelineConfiguration) {
        self = settings.angleSets.map {
            StreamRegistry.AngleSet(name: $0.name, title: $0.title, streams: $0.streams, segmentDuration: settings.segmentDuration)
        }
    }
}
