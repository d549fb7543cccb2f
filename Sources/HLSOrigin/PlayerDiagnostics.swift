import HTTPTypes
import NIOCore
import OriginPolicy
import Metrics
import OriginRegistry
import OriginState
import PlayerSessions
import Synchronization

/// CMCD in, CMSD out (CTA-5004, CTA-5006), on both of the origin's paths.
///
/// In: a request that carries CMCD (the `CMCD` query parameter or a `CMCD-*` header) on a
/// stream's playlist or segment is recorded in the `PlayerSessionBook`; `/metrics` counts
/// sessions by stream and state (`sideline_player_sessions{stream,state}`), stalls by stream
/// and variant (`sideline_player_stalls_total`), and CMCD it could not read
/// (`sideline_cmcd_malformed_total`), which is never an error for the player. Label values
/// come only from the registry's streams and variants and two states: the label sets stay
/// bounded whatever players send.
///
/// Out: `CMSD-Static` says what the object is (`ot` m or av, `sf` h, `st` l while the stream
/// is live, v once it ended or under /vod/) and, for a fill, what stands in the slot
/// (`com.sideline-fill="stand-in"` or `"sibling"`). `CMSD-Dynamic` carries the origin's
/// own measure of what it sends (`com.sideline-egress`, kbit/s over the last whole second).
public final class PlayerDiagnostics: Sendable {
    public let book: PlayerSessionBook
    private let gauges = Mutex<[PlayerSessionBook.Count: Gauge]>([:])
    private let stalls = Mutex<[String: Counter]>([:])
    private let malformed = Counter(label: "sideline_cmcd_malformed_total")
    private let egress = EgressMeter()

    public init(book: PlayerSessionBook) {
        self.book = book
    }

    static let cmcdHeaders = ["cmcd-request", "cmcd-object", "cmcd-status", "cmcd-session"]

    /// Records the request's CMCD, if it has any, for `stream` (and `variant`, nil for a master).
    func observe(query: String?, headers: HTTPFields, stream: String, variant: String?) {
        var values: [String] = []
        for field in headers where field.name.canonicalName.hasPrefix("cmcd-") && Self.cmcdHeaders.contains(field.name.canonicalName) {
            values.append(field.value)
        }
        guard !values.isEmpty || query?.contains("CMCD=") == true else { return }
        let report: CMCDReport?
        do {
            report = try CMCDReport.parse(query: query, headers: values)
        } catch {
            book.countMalformed()
            malformed.increment()
            return
        }
        guard let report else { return }
        let change = book.record(report, stream: stream, variant: variant, userAgent: headers[.userAgent])
        apply(change)
        if change.stallBegan { stallCounter(stream: stream, variant: variant ?? "-").increment() }
    }

    /// Sessions as `/api/sessions` lists them (idle ones forgotten first).
    public func sessions() -> [PlayerSession] {
        let (sessions, change) = book.sessions()
        apply(change)
        return sessions
    }

    private func apply(_ change: PlayerSessionBook.Change) {
        guard !change.counts.isEmpty else { return }
        gauges.withLock { gauges in
            for (key, count) in change.counts {
                let gauge = gauges[key] ?? Gauge(label: "sideline_player_sessions", dimensions: [("stream", key.stream), ("state", key.state.rawValue)])
                gauges[key] = gauge
                gauge.record(count)
            }
        }
    }

    private func stallCounter(stream: String, variant: String) -> Counter {
        stalls.withLock { stalls in
            let key = stream + "/" + variant
            if let counter = stalls[key] { return counter }
            let counter = Counter(label: "sideline_player_stalls_total", dimensions: [("stream", stream), ("variant", variant)])
            stalls[key] = counter
            return counter
        }
    }

    /// Records the CMCD of a request the origin answers from a stream (not a refusal: its
    /// stream and variant may be names no stream has, which must not become labels).
    func observe(_ path: Result<OriginPath, OriginPath.Rejection>, decision: OriginDecision, query: String?, headers: HTTPFields) {
        guard case let .success(resource) = path else { return }
        switch decision {
        case .playlist, .segment, .part, .partOfFile: observe(query: query, headers: headers, stream: resource.stream, variant: resource.variant)
        case .refuse, .hold, .steering: break
        }
    }

    /// CMSD on an answer of `decision` (a playlist or segment sent whole or in part).
    func annotate(_ response: inout OriginResponse, decision: OriginDecision, live: Bool) {
        guard response.status == .ok || response.status == .partialContent else { return }
        switch decision {
        case .playlist: describe(&response.headers, playlist: true, live: live, fill: nil, bodyBytes: response.body.readableBytes)
        case let .segment(file), let .partOfFile(file, _): describe(&response.headers, playlist: false, live: live, fill: file.fill, bodyBytes: response.body.readableBytes)
        case .part: describe(&response.headers, playlist: false, live: live, fill: nil, bodyBytes: response.body.readableBytes)
        case .refuse, .hold, .steering: break
        }
    }

    static let cmsdStatic = HTTPField.Name("CMSD-Static")!
    static let cmsdDynamic = HTTPField.Name("CMSD-Dynamic")!

    /// Adds CMSD to a playlist or segment answer of `body` bytes.
    func describe(_ headers: inout HTTPFields, playlist: Bool, live: Bool, fill: String?, bodyBytes: Int) {
        var value = playlist ? (live ? "ot=m,sf=h,st=l" : "ot=m,sf=h,st=v") : (live ? "ot=av,sf=h,st=l" : "ot=av,sf=h,st=v")
        if let fill { value += ",com.sideline-fill=\"\(fill)\"" }
        // Appended: no answer carries CMSD before this, and setting by name searches first.
        headers.append(HTTPField(name: Self.cmsdStatic, value: value))
        headers.append(HTTPField(name: Self.cmsdDynamic, value: egress.add(bodyBytes, now: ContinuousClock.now)))
    }
}

/// What the origin sent in the last whole second, as a `CMSD-Dynamic` value made once a second
/// (every answer reads it; none formats it).
final class EgressMeter: Sendable {
    private struct Window {
        var start: ContinuousClock.Instant
        var bytes = 0
        var value = "\"sideline\";com.sideline-egress=0"
    }

    private let window = Mutex(Window(start: .now))

    func add(_ bytes: Int, now: ContinuousClock.Instant) -> String {
        window.withLock { window in
            let elapsed = now - window.start
            if elapsed >= .seconds(1) {
                // A window that ended more than a second ago says nothing about the last second.
                let kbps = elapsed < .seconds(2) ? window.bytes * 8 / 1000 : 0
                window.value = "\"sideline\";com.sideline-egress=\(kbps)"
                window.start = now
                window.bytes = 0
            }
            window.bytes += bytes
            return window.value
        }
    }
}
