import Foundation
import Testing

/// Reads a fixture from Tests/HLSPlaylistTests/Golden.
func golden(_ name: String) throws -> String {
    let url = try #require(Bundle.module.url(forResource: "Golden/\(name)", withExtension: nil))
    return try String(contentsOf: url, encoding: .utf8)
}

func date(_ iso: String) -> Date {
    guard let date = ISO8601DateFormatter.withMilliseconds.date(from: iso) else { fatalError("bad test date \(iso)") }
    return date
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withMilliseconds: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
