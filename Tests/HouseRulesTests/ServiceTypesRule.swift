import Foundation

extension HouseRules {
    static let servicesGroup = "services"

    /// The public types of the services targets that no test names, each with why it needs no
    /// test of its own: it decides nothing (wiring, a transport, a value, a place to hold
    /// something), or what it decides is a pure core's, whose rows are named. A type that
    /// makes a decision does not belong here: give it a test that names it.
    static let servicesWithoutDecisions: [String: String] = [
        "FFmpegError": "a value: an FFmpeg return code and the call that gave it, as text",
        "ConnectionRequestScreen": "a port: the connection's limiter asks HLSOrigin's credential throttle through it (CredentialThrottleHTTPTests)",
        "EncoderCalibration": "measures what encoding costs on this machine; EncoderEffort's EncodingCapacity decides from the figures (EncodingCapacityTests)",
        "MetricsExposition": "the protocol /metrics renders through; the Prometheus backend is the executable's",
        "OriginResponse": "a value: the status, headers and body OriginAnswer built (OriginAnswerTests)",
        "RequestAudience": "a task-local holding what the access gate found; ViewerAccess decides (ViewerAccessHTTPTests)",
        "OriginRoutes": "wiring: the /live/ and /vod/ routes carry OriginDecision and VODDecision out (OriginHTTPTests through OriginServer)",
        "OpenedPipeline": "a value: an input opened before its recorder exists",
        "EventForwarder": "wiring: a pipeline's events into the stream's publisher",
        "PipelineService": "wiring: runs a pipeline under PipelineSupervisor (PipelineSupervisorTests) for ServiceLifecycle",
        "PushedStreamService": "wiring: a pushed stream's slot ticks for ServiceLifecycle; the stream is PushedStream (PushedLadderTests, IngestRoutesHTTPTests)",
        "ConsoleStatus": "prints ServeStatusLine's parts (ServeStatusLineTests) once a second",
        "ConsoleService": "wiring: ConsoleStatus for ServiceLifecycle",
        "RetentionService": "carries RetentionPolicy's verdicts out (RetentionTests) every check_interval",
        "StreamPublisher": "carries SlotPublisher's decisions (SlotPublisherTests) onto disk and into the registry; built by ServePlan (ServePlanRestoreTests)",
        "StandIn": "a value: one variant's stand-in segment and what the publisher needs of it",
        "StandIns": "encodes the slate when the kept one was made for other settings; exercised by every ServePlan and pushed-stream test",
        "PlaylistWriter": "carries the publishing core's listings onto disk (VariantRecorder, SegmentStoreTests) and into the registry",
        "ClipArchive": "writes a set clip's ZIP; SetClipZipTests opens one made on a real server",
        "RunningStream": "a value: what the executable keeps of each running stream",
        "SidelineMetrics": "the names of the metrics the services count",
        "LoadShedding": "carries RungShedding's decisions (RungSheddingTests) out: a stream's ShedControl and its publisher's shed and restore (ShedRungTests)",
        "IngestClient": "a transport: PUT with the bearer token; PushUploader decides what goes up and when (PushUploaderTests)",
    ]

    /// Every public type of a services target is named by a test, or is in
    /// `servicesWithoutDecisions`; an entry there that names no such type, or a type a test
    /// names now, is stale. `sources` and `tests`: file path to text.
    static func serviceTypesNamedByTests(_ manifest: Manifest, sources: [String: String], tests: [String: String],
                                         without: [String: String] = servicesWithoutDecisions) -> [Violation] {
        let directories = manifest.targets(in: servicesGroup).map { "/" + $0.directory + "/" }
        let named = Set(tests.filter { !$0.key.contains("/HouseRulesTests/") }.values.flatMap(identifiers))
        var declared: [String: String] = [:]
        for (path, text) in sources where directories.contains(where: { ("/" + path).contains($0) }) {
            for type in publicTypes(in: String(SwiftText.withoutComments(text))) { declared[type] = path }
        }
        var violations: [Violation] = []
        for (type, path) in declared.sorted(by: { $0.key < $1.key }) where !named.contains(type) && without[type] == nil {
            violations.append(Violation(rule: .untestedServiceType, subject: type, message: "\(type) (\(path)) is named by no test: if it makes a decision, test it in the target's tests; if it decides nothing (wiring, a transport, a value), add it to HouseRules.servicesWithoutDecisions with the reason"))
        }
        for type in without.keys.sorted() {
            if declared[type] == nil {
                violations.append(Violation(rule: .untestedServiceType, subject: type, message: "HouseRules.servicesWithoutDecisions lists \(type), which no services target declares publicly: remove the entry"))
            } else if named.contains(type) {
                violations.append(Violation(rule: .untestedServiceType, subject: type, message: "\(type) is named by a test now: remove it from HouseRules.servicesWithoutDecisions"))
            }
        }
        return violations
    }

    /// The public (or open) structs, enums, classes, actors and protocols `code` declares at
    /// the top level (a nested type is its enclosing type's).
    static func publicTypes(in code: String) -> [String] {
        let pattern = /(?m)^(?:public|open)\s+(?:final\s+)?(?:struct|enum|class|actor|protocol)\s+([A-Za-z_][A-Za-z0-9_]*)/
        return code.matches(of: pattern).map { String($0.output.1) }
    }

    /// Every identifier-like word of `text`.
    static func identifiers(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
    }
}
