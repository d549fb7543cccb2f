import Foundation
import OriginAccess
import OriginPolicy
import SidelineConfig
import StreamServices
import Testing

/// A private set whose angles are on two boxes (issue 35, `boxes`): box B encodes `goal` and
/// lists the set `match`, served by box A (which encodes the default angle `wide`), so that the
/// access rules B builds from its config open `goal` to the set's one credential, as A's do for
/// `wide`. Without the set on B, B refused a set's URL for its own angle with 403.
@Suite struct VenueSetAccessTests {
    static let now = 1_800_000_000.0
    static let boxB = """
        streams:
          - {name: goal, input: testpattern, viewer_token: goal-token-0123456789}
          - {name: tunnel, input: testpattern, viewer_token: tunnel-token-0123456789}
        access: {signing_key: venue-key-0123456789}
        analyst: {token: venue-analyst-0123456789}
        boxes:
          - {url: 'http://10.0.0.2:8080', streams: [wide]}
        angle_sets:
          - {name: match, streams: [wide, goal]}
        """

    enum Expected: Equatable { case pass, unauthorized, forbidden }

    static func outcome(_ target: String, authorization: String? = nil, yaml: String = boxB) throws -> Expected {
        let gate = AccessGate(rules: AccessRules.from(try SidelineConfiguration.parse(yaml: yaml, file: "box-b.yaml")))
        switch gate.check(target: target, authorization: authorization, now: now) {
        case .pass: return .pass
        case let .refuse(refusal): return refusal.kind == .forbidden ? .forbidden : .unauthorized
        }
    }

    /// What box A hands a viewer of the set: signed with the key every box shares, or made from
    /// the viewer token the set's private angles share.
    static func signed(_ name: String) -> String {
        AccessCredential.signed(stream: name, expires: Int(now) + 600, variant: nil).text(key: "venue-key-0123456789")
    }
    static func viewer(_ name: String, token: String) -> String {
        AccessCredential.viewer(stream: name).text(key: token)
    }

    @Test(arguments: [
        ("/access/\(signed("match"))/live/goal/master.m3u8", nil as String?, Expected.pass),
        ("/access/\(signed("match"))/live/goal/180p/index.m3u8", nil, .pass),
        ("/access/\(signed("match"))/api/streams/goal/clip.mp4", nil, .pass),
        // A set with an angle on another box has no viewer token here: one angle's token is not
        // known to be the set's (it opened the other box's angle through the set's credential).
        ("/access/\(viewer("match", token: "goal-token-0123456789"))/live/goal/master.m3u8", nil, .unauthorized),
        ("/live/match/master.m3u8", "Bearer goal-token-0123456789", .forbidden),
        ("/access/\(viewer("goal", token: "goal-token-0123456789"))/live/goal/master.m3u8", nil, .pass),
        // The set's credential opens no stream outside the set, and an angle's opens no other.
        ("/access/\(signed("match"))/live/tunnel/master.m3u8", nil, .forbidden),
        ("/access/\(signed("wide"))/live/goal/master.m3u8", nil, .forbidden),
        // A set credential made from a token this box's angles of it do not have.
        ("/access/\(viewer("match", token: "wide-token-0123456789"))/live/goal/master.m3u8", nil, .unauthorized),
        ("/live/goal/master.m3u8", nil, .unauthorized),
        ("/live/goal/master.m3u8", "Bearer venue-analyst-0123456789", .pass),
    ])
    func boxBOpensItsAngleToTheSetsCredential(target: String, authorization: String?, expected: Expected) throws {
        #expect(try Self.outcome(target, authorization: authorization) == expected)
    }

    /// The regression: the same box without the set refuses the set's URL for its own angle.
    @Test func withoutTheSetBoxBRefusesTheSetsURL() throws {
        let alone = Self.boxB.replacingOccurrences(of: "angle_sets:\n  - {name: match, streams: [wide, goal]}", with: "")
        #expect(alone != Self.boxB)
        #expect(try Self.outcome("/access/\(Self.signed("match"))/live/goal/master.m3u8", yaml: alone) == .forbidden)
    }

    /// The sets a box serves openly, which `RemoteAngleService` holds against the other boxes'
    /// private angles: a set with a private angle here is not one of them.
    @Test func theOpenSetsAreTheServedSetsWithNoPrivateAngleHere() throws {
        let boxA = try SidelineConfiguration.parse(yaml: """
            streams:
              - {name: wide, input: testpattern}
              - {name: tv, input: testpattern, viewer_token: tv-token-0123456789}
              - {name: drills, input: testpattern}
            boxes:
              - {url: 'http://10.0.0.12:8080', streams: [goal, tunnel, gate]}
            angle_sets:
              - {name: match, streams: [wide, goal]}
              - {name: studio, streams: [tv, tunnel]}
              - {name: away, streams: [gate, drills]}
            """, file: "box-a.yaml")
        #expect(AccessRules.from(boxA).openSets(of: boxA) == ["match": ["wide", "goal"]], "studio is private here; away is served by the other box")
    }
}
