import OriginPolicy

/// The file of a `multipart/form-data` upload to `/ingest/`: the part named `uploadFile`, else
/// the one part that carries a filename (RFC 7578). Pure, so the fuzzer reaches it (target
/// `multipart-form`).
public enum MultipartUpload {
    public static let fieldName = "uploadFile"

    public static func file(in body: [UInt8], contentType: String) -> Result<[UInt8], Refusal> {
        guard let boundary = HeaderTokens.parameter("boundary", in: contentType), !boundary.isEmpty else {
            return .failure(.malformed("a multipart/form-data upload needs a boundary parameter in its Content-Type"))
        }
        let parts: [MultipartForm.Part]
        switch MultipartForm.parts(of: body, boundary: boundary) {
        case let .success(read): parts = read
        case let .failure(rejection): return .failure(.malformed("the multipart/form-data body cannot be read: \(rejection)"))
        }
        func disposition(_ part: MultipartForm.Part, _ parameter: String) -> String? {
            HeaderTokens.parameter(parameter, in: part.header("content-disposition") ?? "")
        }
        if let named = parts.first(where: { disposition($0, "name") == fieldName }) { return .success(Array(body[named.body])) }
        let files = parts.filter { disposition($0, "filename") != nil }
        guard files.count == 1, let file = files.first else {
            return .failure(.malformed("a multipart/form-data upload carries its file in the field '\(fieldName)'; this one has \(files.count) file parts"))
        }
        return .success(Array(body[file.body]))
    }
}
