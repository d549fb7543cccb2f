import SidelineConfig
import Testing

/// `angle_sets`: which configs are taken and what each refusal says.
@Suite struct AngleSetSettingsTests {
    static let threeCameras = """
        streams:
          - {name: wide, input: a.mp4}
          - {name: broadcast, input: b.mp4}
          - {name: goal, input: c.mp4}
        """

    static func parse(_ sets: String) throws -> SidelineConfiguration {
        try SidelineConfiguration.parse(yaml: threeCameras + "\n" + sets, file: "test.yaml")
    }

    static func refusal(_ sets: String) -> String {
        do {
            _ = try parse(sets)
            return "(taken)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aSetListsItsAnglesDefaultFirst() throws {
        let config = try Self.parse("""
            angle_sets:
              - {name: match, title: Home v Away, streams: [broadcast, wide, goal]}
            """)
        #expect(config.angleSets == [AngleSetSettings(name: "match", streams: ["broadcast", "wide", "goal"], title: "Home v Away")])
        #expect(config.angleSets[0].defaultStream == "broadcast")
        #expect(config.angleSet(containing: "goal")?.name == "match")
        #expect(config.angleSet(named: "match")?.title == "Home v Away")
        #expect(config.angleSet(containing: "nobody") == nil)
    }

    @Test func noSetsByDefault() throws {
        #expect(try SidelineConfiguration.parse(yaml: Self.threeCameras).angleSets.isEmpty)
    }

    @Test(arguments: [
        ("angle_sets:\n  - {streams: [wide]}", "angle_sets[0].name"),
        ("angle_sets:\n  - {name: m}", "angle_sets[0].streams"),
        ("angle_sets:\n  - {name: m, streams: []}", "an empty list"),
        ("angle_sets:\n  - {name: m, streams: [wide, nobody]}", "angle_sets[0].streams[1]"),
        ("angle_sets:\n  - {name: wide, streams: [goal]}", "a name no stream has"),
        ("angle_sets:\n  - {name: m, streams: [wide]}\n  - {name: m, streams: [goal]}", "a name no other set has"),
        ("angle_sets:\n  - {name: m, streams: [wide]}\n  - {name: n, streams: [goal, wide]}", "it is in set 'm' already"),
        ("angle_sets:\n  - {name: m, streams: [wide, wide]}", "each stream once"),
        ("angle_sets:\n  - {name: ../m, streams: [wide]}", "angle_sets[0].name"),
        ("angle_sets:\n  - {name: m, streams: [wide], colour: red}", "colour"),
        ("angle_sets: {name: m}", "a list"),
    ])
    func refusalsSayWhichKeyAndWhy(sets: String, expected: String) {
        let message = Self.refusal(sets)
        #expect(message.contains(expected), "\(message)")
        #expect(message.contains("test.yaml"), "\(message)")
    }

    @Test func anglesOfOneSetShareAFrameRate() {
        let message = Self.refusal("""
            angle_sets:
              - {name: m, streams: [wide, goal]}
            """) // one frame rate: taken
        #expect(message == "(taken)")
        let mixed = """
            streams:
              - {name: wide, input: a.mp4}
              - {name: goal, input: c.mp4, video: {frame_rate: 25}}
            angle_sets:
              - {name: m, streams: [wide, goal]}
            """
        do {
            _ = try SidelineConfiguration.parse(yaml: mixed, file: "test.yaml")
            Issue.record("a set with two frame rates was taken")
        } catch {
            #expect("\(error)".contains("one frame grid"), "\(error)")
        }
    }

    @Test func tooManyAnglesAreRefused() {
        let names = (0...AngleSetSettings.maximumAngles).map { "c\($0)" }
        let yaml = "streams:\n" + names.map { "  - {name: \($0), input: x.mp4}\n" }.joined()
            + "angle_sets:\n  - {name: m, streams: [\(names.joined(separator: ", "))]}\n"
        do {
            _ = try SidelineConfiguration.parse(yaml: yaml)
            Issue.record("17 angles were taken")
        } catch {
            #expect("\(error)".contains("at most 16 angles"), "\(error)")
        }
    }
}
