import OriginPolicy
import Testing

/// The delivery directives of draft-pantos-hls-rfc8216bis §6.2.5, parsed row by row; the
/// decisions they drive are tested in HLSOriginTests (DeliveryDirectivesTests).
@Suite struct PlaylistDirectivesTests {
    @Test(arguments: [
        (nil, PlaylistDirectives()),
        ("", PlaylistDirectives()),
        ("_HLS_msn=12", PlaylistDirectives(mediaSequence: 12)),
        ("_HLS_skip=YES", PlaylistDirectives(skip: .segments)),
        ("_HLS_skip=v2&_HLS_msn=3", PlaylistDirectives(mediaSequence: 3, skip: .segmentsAndDateRanges)),
        ("_HLS_msn=3&_HLS_part=1", PlaylistDirectives(mediaSequence: 3, part: 1)),
        ("t=12345&token=abc", PlaylistDirectives()), // cache busters and tokens are not directives
    ] as [(String?, PlaylistDirectives)])
    func directivesParse(query: String?, expected: PlaylistDirectives) throws {
        #expect(try PlaylistDirectives.parse(query: query).get() == expected)
    }

    @Test(arguments: [
        ("_HLS_msn=abc", "_HLS_msn"), ("_HLS_msn=-1", "_HLS_msn"), ("_HLS_msn=", "_HLS_msn"),
        ("_HLS_skip=yes", "_HLS_skip"), ("_HLS_skip=v3", "_HLS_skip"),
        ("_HLS_part=2", "_HLS_part needs _HLS_msn"), ("_HLS_msn=1&_HLS_part=x", "_HLS_part"),
    ])
    func malformedDirectivesAreRefusedNamingTheDirective(query: String, named: String) {
        guard case let .failure(.malformed(reason)) = PlaylistDirectives.parse(query: query) else {
            Issue.record("\(query) must be malformed")
            return
        }
        #expect(reason.contains(named), "\(reason)")
    }
}
