import SidelineConfig
import Testing

/// `redundancy: {peer, role}` (issue 35): both keys, a base URL a player can reach, a role of
/// two; without it, a box runs as one.
@Suite struct RedundancySettingsTests {
    static let camera = "stream: {name: main, input: testpattern}\n"

    static func refusal(_ yaml: String) -> String {
        do {
            _ = try SidelineConfiguration.parse(yaml: camera + yaml, file: "venue.yaml")
            return "(taken)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aStandbyNamesItsPrimary() throws {
        let config = try SidelineConfiguration.parse(yaml: Self.camera + "redundancy: {peer: 'http://10.0.0.2:8080/', role: standby}\n")
        #expect(config.redundancy == RedundancySettings(peer: "http://10.0.0.2:8080/", role: .standby))
        #expect(config.redundancy?.peerBase == "http://10.0.0.2:8080")
        #expect(try SidelineConfiguration.parse(yaml: Self.camera).redundancy == nil, "one box, as ever")
    }

    /// A pair cuts a keyframe at every part unless told not to; one box never does (its
    /// pipeline keeps a keyframe per segment).
    @Test func aPairStartsEveryPartWithAKeyframeUnlessToldNotTo() throws {
        let pair = try SidelineConfiguration.parse(yaml: Self.camera + "redundancy: {peer: 'http://10.0.0.2:8080', role: primary}\n")
        #expect(pair.redundancy?.keyframeEveryPart == true)
        let lean = try SidelineConfiguration.parse(yaml: Self.camera + "redundancy: {peer: 'http://10.0.0.2:8080', role: primary, keyframe_every_part: false}\n")
        #expect(lean.redundancy?.keyframeEveryPart == false)
    }

    @Test(arguments: [
        ("redundancy: {role: standby}", "redundancy.peer"),
        ("redundancy: {peer: 'http://10.0.0.2:8080'}", "redundancy.role"),
        ("redundancy: {peer: '10.0.0.2:8080', role: standby}", "http:// or https://"),
        ("redundancy: {peer: 'ftp://10.0.0.2', role: standby}", "http:// or https://"),
        ("redundancy: {peer: 'http://10.0.0.2:8080?x=1', role: standby}", "http:// or https://"),
        ("redundancy: {peer: 'http://10.0.0.2:8080', role: backup}", "primary or standby"),
        ("redundancy: {peer: 'http://10.0.0.2:8080', role: standby, weight: 2}", "weight"),
        ("redundancy: {peer: 'http://10.0.0.2:8080', role: standby, keyframe_every_part: sometimes}", "redundancy.keyframe_every_part"),
    ])
    func aMistakeNamesTheKeyAndWhatItTakes(yaml: String, mentions: String) {
        let message = Self.refusal(yaml + "\n")
        #expect(message != "(taken)" && message.contains(mentions), "\(message)")
        #expect(message.contains("venue.yaml"), "\(message)")
    }
}
