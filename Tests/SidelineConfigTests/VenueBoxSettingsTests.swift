import SidelineConfig
import Testing

/// `boxes` (issue 35, cameras spread over boxes): each other box's URL and the streams it
/// encodes; a set may name those streams; a name is on one box only; the universal timeline
/// comes with it.
@Suite struct VenueBoxSettingsTests {
    static let wide = "streams:\n  - {name: wide, input: testpattern}\n"

    static func refusal(_ yaml: String) -> String {
        do {
            _ = try SidelineConfiguration.parse(yaml: wide + yaml, file: "venue.yaml")
            return "(taken)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aSetMayNameAnAngleAnotherBoxEncodes() throws {
        let config = try SidelineConfiguration.parse(yaml: Self.wide + """
            boxes:
              - {url: 'http://10.0.0.12:8080/', streams: [goal, tunnel]}
            angle_sets:
              - {name: match, streams: [wide, goal]}
            """)
        #expect(config.boxes == [VenueBoxSettings(url: "http://10.0.0.12:8080/", streams: ["goal", "tunnel"])])
        #expect(config.remoteAngleBoxes == ["goal": "http://10.0.0.12:8080", "tunnel": "http://10.0.0.12:8080"])
        #expect(config.box(serving: "goal")?.base == "http://10.0.0.12:8080")
        #expect(config.box(serving: "wide") == nil)
        #expect(config.angleSets.first?.streams == ["wide", "goal"])
        #expect(config.usesUniversalTimeline, "every box of the venue runs on the universal grid")
        #expect(try !SidelineConfiguration.parse(yaml: Self.wide).usesUniversalTimeline, "one box, as ever")
        #expect(try SidelineConfiguration.parse(yaml: Self.wide + "redundancy: {peer: 'http://10.0.0.3:8080', role: primary}\n").usesUniversalTimeline)
    }

    @Test(arguments: [
        ("boxes:\n  - {streams: [goal]}", "boxes[0].url"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080'}", "boxes[0].streams"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: []}", "boxes[0].streams"),
        ("boxes:\n  - {url: '10.0.0.12', streams: [goal]}", "http:// or https://"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: ['../x']}", "boxes[0].streams"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: [goal], weight: 1}", "weight"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: [wide]}", "a stream this box does not encode itself"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: [goal]}\n  - {url: 'http://10.0.0.13:8080', streams: [Goal]}", "boxes[0] does"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: [match]}\nangle_sets:\n  - {name: match, streams: [wide]}", "a name no angle set has"),
        ("boxes:\n  - {url: 'http://10.0.0.3:8080', streams: [goal]}\nredundancy: {peer: 'http://10.0.0.3:8080', role: primary}", "another box than redundancy.peer"),
        ("angle_sets:\n  - {name: match, streams: [wide, goal]}", "the name of a stream in 'streams'"),
        ("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: [goal, tunnel]}\nangle_sets:\n  - {name: match, streams: [goal, tunnel]}", "at least one stream this box encodes"),
    ])
    func aMistakeNamesTheKeyAndWhatItTakes(yaml: String, mentions: String) {
        let message = Self.refusal(yaml + "\n")
        #expect(message != "(taken)" && message.contains(mentions), "\(message)")
        #expect(message.contains("venue.yaml"), "\(message)")
    }

    /// The same set on every box that encodes one of its angles: the box of the default angle
    /// serves it; another lists it so that the set's credential opens its angles there.
    @Test func aSetWhoseDefaultAngleAnotherBoxEncodesIsServedThere() throws {
        let config = try SidelineConfiguration.parse(yaml: """
            streams:
              - {name: wide, input: testpattern}
              - {name: drills, input: testpattern}
            boxes:
              - {url: 'http://10.0.0.12:8080/', streams: [goal]}
            angle_sets:
              - {name: match, streams: [goal, wide]}
              - {name: training, streams: [drills]}
            """)
        #expect(config.angleSets.map(\.name) == ["match", "training"], "both are this box's to know")
        #expect(config.servedAngleSets.map(\.name) == ["training"])
        #expect(config.angleSetsServedElsewhere == ["match": "http://10.0.0.12:8080"])
        #expect(config.angleSet(containing: "wide")?.name == "match", "wide is on match's timeline here too")
        let match = try #require(config.angleSet(named: "match"))
        #expect(config.angles(of: match).here == ["wide"] && config.angles(of: match).elsewhere == ["goal"], "what an export here cuts")
        #expect(config.remoteAngleFrameRates == ["goal": 30], "goal's master must say wide's rate")
    }

    @Test func theListIsBounded() {
        let many = (0...VenueBoxSettings.maximumBoxes).map { "  - {url: 'http://10.0.1.\($0):8080', streams: [cam\($0)]}" }.joined(separator: "\n")
        #expect(Self.refusal("boxes:\n" + many + "\n").contains("at most \(VenueBoxSettings.maximumBoxes)"))
        let names = (0...VenueBoxSettings.maximumStreamsPerBox).map { "cam\($0)" }.joined(separator: ", ")
        #expect(Self.refusal("boxes:\n  - {url: 'http://10.0.0.12:8080', streams: [\(names)]}\n").contains("at most \(VenueBoxSettings.maximumStreamsPerBox)"))
    }
}
