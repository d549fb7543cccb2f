import HLSPlaylist
import OriginPolicy
import OriginRegistry
import OriginState
import SidelineConfig

extension Array where Element == StreamRegistry.AngleSet {
    /// The config's `angle_sets` this box serves (`SidelineConfiguration.servedAngleSets`), as
    /// the registry serves them: every set's angles share the config's one `segment_duration`.
    public init(_ settings: SidelineConfiguration) {
        self = settings.servedAngleSets.map {
            StreamRegistry.AngleSet(name: $0.name, title: $0.title, streams: $0.streams, segmentDuration: settings.segmentDuration)
        }
    }
}

extension SetMaster.Pathways {
    /// The pathways a box of a redundant pair gives its sets' masters, as `StreamPublisher`
    /// gives its streams' (its role's first, the other box's second); nil with no pair.
    public static func of(_ settings: SidelineConfiguration) -> SetMaster.Pathways? {
        settings.redundancy.map { pair in
            SetMaster.Pathways(own: SteeringPolicy.pathway(ofRole: pair.role.rawValue), other: SteeringPolicy.pathway(ofRole: pair.otherRole.rawValue),
                               otherBase: pair.peerBase, steeringURI: OriginPath.steeringName)
        }
    }
}
