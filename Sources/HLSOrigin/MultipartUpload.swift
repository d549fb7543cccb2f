import MultipartKit
import OriginPolicy

/// In a file of its own, importing only MultipartKit and OriginPolicy, so the fuzz harness
/// (scripts/fuzz/run.sh, target `multipart-form`) compiles it with the parser it calls.
///
/// The file of a `multipart/form-data` upload: the part named `uploadFile`, else the one part
/// that carries a filename (RFC 7578).
public enum MultipartUpload {
    public static let fieldName = "uploadFile"

    public static func file(in body: [UInt8], contentType: String) -> Result<[UInt8], Refusal> {
        guard let boundary = HeaderTokens.parameter("boundary", in: contentType), !boundary.isEmpty else {
            return .failure(.malformed("a multipart/form-data upload needs a boundary parameter in its Content-Type"))
        }
        let parser = MultipartParser(boundary: boundary)
        var parts: [(name: String?, hasFilename: Bool, body: [UInt8])] = []
        var headers: [(String, String)] = []
        var current: [UInt8] = []
        parser.onHeader = { headers.append(($0, $1)) }
        parser.onBody = { current += $0.readableBytesView; $0.moveReaderIndex(forwardBy: $0.readableBytes) }
        parser.onPartComplete = {
            let disposition = headers.first { $0.0.lowercased() == "content-disposition" }?.1 ?? ""
            parts.append((HeaderTokens.parameter("name", in: disposition), HeaderTokens.parameter("filename", in: disposition) != nil, current))
            headers = []
            current = []
        }
        do {
            try parser.execute(body)
        } catch {
            return .failure(.malformed("the multipart/form-data body cannot be read: \(error)"))
        }
        if let named = parts.first(where: { $0.name == fieldName }) { return .success(named.body) }
        let files = parts.filter(\.hasFilename)
        guard files.count == 1 else {
            return .failure(.malformed("a multipart/form-data upload carries its file in the field '\(fieldName)'; this one has \(files.count) file parts"))
        }
        return .success(files[0].body)
    }
}
