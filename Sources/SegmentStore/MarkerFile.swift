import Foundation
import HLSPlaylist
import SidelineCore

/// A stream's markers on disk: `<data dir>/<stream>/markers.json`, written whole and
/// atomically (`AtomicFile`) on every change, so a crash leaves the old list or the new one.
/// It lives beside the recording, so a restart, a copy of the stream directory, and retention
/// treat markers like the segments they mark.
public enum MarkerFile {
    public static let fileName = StoreNames.markers

    public static func path(in layout: StreamLayout) -> String { "\(layout.streamDirectory)/\(fileName)" }

    struct Contents: Codable {
        var markers: [Marker]
    }

    /// The stream's markers; none when the file does not exist. A file that cannot be read is
    /// moved aside (never deleted: an operator can still recover it) and reported in the error.
    public static func load(_ layout: StreamLayout, now: Date = Date()) -> Result<[Marker], StoreError> {
        let path = path(in: layout)
        guard let data = FileManager.default.contents(atPath: path) else { return .success([]) }
        do {
            return .success(try decoder.decode(Contents.self, from: data).markers)
        } catch {
            let aside = path + ".unreadable-" + ProgramDateTime.format(now)
            let moved = rename(path, aside) == 0
            return .failure(.writeFailed(path: path, reason: "it is not a marker list (\(error)); "
                + (moved ? "moved aside to \(aside), starting with no markers" : "and it could not be moved aside: \(StoreError.errnoText())")))
        }
    }

    public static func save(_ markers: [Marker], in layout: StreamLayout) throws(StoreError) {
        let bytes: Data
        do {
            bytes = try encoder.encode(Contents(markers: markers))
        } catch {
            throw .writeFailed(path: path(in: layout), reason: "cannot encode the markers: \(error)")
        }
        try AtomicFile.write(Array(bytes), to: path(in: layout))
    }

    /// Dates as program date-times (milliseconds and an offset), like the playlists.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ProgramDateTime.format(date))
        }
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ProgramDateTime.parse(Substring(text)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not a program date-time")
            }
            return date
        }
        return decoder
    }
}
