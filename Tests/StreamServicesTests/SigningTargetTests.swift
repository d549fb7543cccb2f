import SidelineConfig
import SidelineCore
import StreamServices
import Testing

/// `sideline sign <name>`: a stream or an angle set, checked against the config.
@Suite struct SigningTargetTests {
    static let config = """
        streams:
          - {name: wide, input: a.mp4, viewer_token: 7f3a9c2e4b1d8f60a5e2}
          - {name: tv, input: b.mp4}
          - {name: solo, input: c.mp4}
        angle_sets:
          - {name: match, streams: [wide, tv]}
        """

    static func target(_ name: String, variant: String? = nil) -> String {
        do {
            let settings = try SidelineConfiguration.parse(yaml: config, file: "test.yaml")
            let target = try SigningTarget(name, variant: variant, in: settings)
            return "\(target.kind) \(target.isOpen ? "open" : "private")"
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("match", nil as String?, "set private"),
        ("wide", nil, "stream private"),
        ("solo", nil, "stream open"),
        ("match", "360p", "set private"),
        ("match", "4k", "set 'match' has no variant '4k'; its ladder has 720p, 540p, 360p"),
        ("nomatch", nil, "the config has no stream or angle set 'nomatch'; its streams are wide, tv, solo; its angle sets are match"),
    ])
    func aStreamOrASetIsSigned(name: String, variant: String?, expected: String) {
        #expect(Self.target(name, variant: variant) == expected)
    }

    /// A set whose default angle another box encodes (issue 35, `boxes`): signed here too, with
    /// the key every box shares, for the whole set; a variant limit is the serving box's to check.
    @Test func aSetAnotherBoxServesIsSignedWhole() throws {
        let settings = try SidelineConfiguration.parse(yaml: """
            streams:
              - {name: goal, input: a.mp4, viewer_token: 7f3a9c2e4b1d8f60a5e2}
            boxes:
              - {url: 'http://10.0.0.2:8080', streams: [wide]}
            angle_sets:
              - {name: match, streams: [wide, goal]}
            """, file: "box-b.yaml")
        let target = try SigningTarget("match", variant: nil, base: "http://10.0.0.1", in: settings)
        #expect(target.kind == "set" && !target.isOpen && target.servedElsewhere)
        do {
            _ = try SigningTarget("match", variant: nil, in: settings)
            Issue.record("signed without --base: a URL to this box, which answers the set 404")
        } catch {
            #expect(error.message.contains("give --base the venue's edge"), "\(error.message)")
        }
        #expect(throws: SidelineStartupError.self) { try SigningTarget("match", variant: "360p", in: settings) }
        do {
            _ = try SigningTarget("match", variant: "360p", in: settings)
        } catch {
            #expect(error.message.contains("served by the box that encodes its default angle 'wide'"), "\(error.message)")
        }
    }
}
