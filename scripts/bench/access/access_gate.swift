import Foundation
import OriginAccess

// What the viewer-access gate costs per request (Docs/benchmarks.md, "Viewer access"), next
// to its anchor measured in the same run: the same gate on an open stream (what every
// request costs with access control on but the stream open), alternated, medians of rounds.
@main
enum AccessGateBench {
    static func main() {
        let rules = AccessRules(viewerTokens: ["home": "benchmark-viewer-token-0123456789"], signingKey: "benchmark-signing-key-0123456789",
                                staffTokens: ["analyst", "admin"])
        let gate = AccessGate(rules: rules)
        let now = Date().timeIntervalSince1970
        let credential = rules.signedCredential(for: "home", expires: Int(now) + 3600)!
        let cases: [(String, String, String?)] = [
            ("private, signed URL (MAC remembered)", "/access/\(credential)/live/home/360p/index.m3u8?_HLS_msn=5400&_HLS_skip=YES", nil),
            ("private, bearer token", "/live/home/360p/002700.ts", "Bearer benchmark-viewer-token-0123456789"),
            ("open stream (anchor)", "/live/away/360p/index.m3u8?_HLS_msn=5400&_HLS_skip=YES", nil),
        ]
        let iterations = 200_000
        var results: [String: [Double]] = [:]
        for round in 0..<7 {
            for (name, target, authorization) in round % 2 == 0 ? cases : cases.reversed() {
                let start = ContinuousClock.now
                var passed = 0
                for _ in 0..<iterations {
                    if case .pass = gate.check(target: target, authorization: authorization, now: now) { passed += 1 }
                }
                precondition(passed == iterations, "\(name) was refused")
                let elapsed = ContinuousClock.now - start
                results[name, default: []].append(Double(elapsed.components.attoseconds) / 1e9 / Double(iterations) + Double(elapsed.components.seconds) * 1e9 / Double(iterations))
            }
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let anchor = median(results["open stream (anchor)"]!)
        print("load average: \(String(decoding: FileManager.default.contents(atPath: "/proc/loadavg")!.prefix(14), as: UTF8.self))")
        for (name, _, _) in cases {
            let value = median(results[name]!)
            print("\(name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(String(format: "%7.0f", value)) ns per check  \(String(format: "%5.2f", value / anchor))x the open stream")
        }
    }
}
