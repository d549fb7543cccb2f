import Foundation
import OriginPolicy
import Testing

/// `Docs/status-codes.md` and `Refusal.Kind` cannot disagree: every refusal row of the status
/// table names its kinds, whose statuses must be the row's, and the catalogue lists every kind
/// with its status, no more and no fewer.
@Suite struct RefusalDocumentationTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("Docs/status-codes.md"), encoding: .utf8)) ?? ""
    }()

    /// The rows of the table under `heading`, each split into its cells.
    static func rows(under heading: String) -> [[String]] {
        guard let start = document.range(of: "\n" + heading + "\n") else { return [] }
        var rows: [[String]] = []
        for line in document[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("|"), !line.hasPrefix("| ---") else { continue }
            rows.append(line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return Array(rows.dropFirst()) // the header row
    }

    /// The `name`s in backticks in a cell.
    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    static func statuses(_ cell: String) -> [Int] {
        cell.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.filter { (100...599).contains($0) }
    }

    @Test func theCatalogueListsEveryKindWithItsStatus() throws {
        let rows = Self.rows(under: "## Every refusal, by kind")
        try #require(!rows.isEmpty, "Docs/status-codes.md has no table under '## Every refusal, by kind'")
        var documented: [String: Int] = [:]
        for row in rows {
            let name = try #require(Self.codeSpans(row[0]).first, "a row without a kind: \(row)")
            documented[name] = Self.statuses(row[1]).first
        }
        for kind in Refusal.Kind.allCases {
            #expect(documented[kind.rawValue] == kind.status, "'\(kind.rawValue)' is \(kind.status) in the code and \(documented[kind.rawValue].map(String.init) ?? "missing") in the doc")
        }
        let unknown = Set(documented.keys).subtracting(Refusal.Kind.allCases.map(\.rawValue))
        #expect(unknown.isEmpty, "the doc lists kinds the code does not have: \(unknown.sorted())")
    }

    @Test func everyRefusalRowOfTheTableNamesKindsOfItsStatus() throws {
        let rows = Self.rows(under: "## The table")
        try #require(rows.count > 30, "Docs/status-codes.md's '## The table' is missing or cut short")
        var named: Set<String> = []
        for row in rows {
            let status = row[2]
            let refusals = Self.statuses(status).filter { $0 >= 400 }
            let kinds = Self.codeSpans(status)
            if refusals.isEmpty {
                #expect(kinds.isEmpty, "a row that refuses nothing names a refusal kind: \(row[0]) / \(row[1])")
                continue
            }
            #expect(!kinds.isEmpty, "a refusal row names no kind: \(row[0]) / \(row[1]) (\(status))")
            for name in kinds {
                guard let kind = Refusal.Kind(rawValue: name) else {
                    Issue.record("'\(name)' is not a Refusal.Kind: \(row[0]) / \(row[1])")
                    continue
                }
                named.insert(name)
                #expect(refusals.contains(kind.status), "'\(name)' is \(kind.status) in the code, the row says \(status): \(row[0]) / \(row[1])")
            }
            for code in refusals {
                #expect(kinds.contains { Refusal.Kind(rawValue: $0)?.status == code }, "\(code) has no kind in the row: \(row[0]) / \(row[1])")
            }
        }
        let missing = Refusal.Kind.allCases.map(\.rawValue).filter { !named.contains($0) }
        #expect(missing.isEmpty, "kinds no row of the table shows: \(missing)")
    }

    /// Each kind's status, written out here as Docs/status-codes.md gives it: one status per
    /// kind, the same for every route and audience. (It compared `Refusal.status` with
    /// `kind.status`, which is how `status` is defined, so it could not fail; issue 33.)
    static let statuses: [Refusal.Kind: Int] = [
        .malformedRequest: 400, .unauthorized: 401, .forbidden: 403,
        .noSuchResource: 404, .noSuchStream: 404, .noSuchVariant: 404, .noSuchMarker: 404, .segmentNotAvailable: 404, .gapSegment: 404,
        .stalePlaylist: 404, .nothingRecorded: 404, .onlyGaps: 404,
        .conflict: 409, .streamRemoved: 410, .tooLarge: 413, .rangeNotSatisfiable: 416, .tooManyAttempts: 429, .tooManyHeld: 429, .tooManyRequests: 429,
        .internalError: 500, .upstreamFailed: 502, .insufficientStorage: 507, .starting: 503, .draining: 503, .overloaded: 503, .partNotReady: 503,
    ]

    @Test func aRefusalsStatusIsItsKinds() {
        #expect(Set(Self.statuses.keys) == Set(Refusal.Kind.allCases), "a kind with no status written here: \(Set(Refusal.Kind.allCases).subtracting(Self.statuses.keys))")
        for kind in Refusal.Kind.allCases {
            #expect(Refusal(kind, "why").status == Self.statuses[kind], "\(kind)")
            #expect(Refusal(kind, "why", audience: .operators).status == Self.statuses[kind], "\(kind)")
        }
        #expect(Refusal.lookUp(stream: "main", phase: nil) == Refusal(.noSuchStream, "no stream named 'main'"))
        #expect(Refusal.lookUp(stream: "main", phase: .removed) == Refusal(.streamRemoved, "stream 'main' was removed", cache: .gone))
        #expect(Refusal.lookUp(stream: "main", phase: .live) == nil)
        #expect(Refusal.lookUp(stream: "main", phase: .ended) == nil)
    }
}
