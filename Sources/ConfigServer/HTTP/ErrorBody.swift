import EventLoop
import HTTP1

/// Google's error envelope, the one every Firebase client and Admin SDK understands.
enum ErrorBody {
    /// `{"error":{"code": …,"message":"…","status":"…"}}` as UTF-8 bytes. The space after
    /// `"code":` is Google's spacing: iOS looks for the text `"code": 403` in a stream's error
    /// (spec §4.3, §4.7).
    static func encode(status: Int, message: String, canonicalStatus: String? = nil) -> [UInt8] {
        let name = canonicalStatus ?? canonicalName(for: status)
        var text = "{\"error\":{\"code\": \(status),\"message\":"
        appendJSONString(message, to: &text)
        text += ",\"status\":\"\(name)\"}}"
        return Array(text.utf8)
    }

    /// The format of the errors the HTTP server answers by itself, so that they read like
    /// every other error of the API.
    static let format = ErrorBodyFormat(contentType: HTTPResponse.jsonContentType) { status, message in
        encode(status: status, message: message)
    }

    /// The canonical Google status name for an HTTP status.
    static func canonicalName(for status: Int) -> String {
        switch status {
        case 400, 411, 414, 431: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 405, 501, 505: "UNIMPLEMENTED"
        case 408, 504: "DEADLINE_EXCEEDED"
        case 409: "ABORTED"
        case 412: "FAILED_PRECONDITION"
        case 413: "OUT_OF_RANGE"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        case 500..<600: "INTERNAL"
        default: "UNKNOWN"
        }
    }

    /// Appends `value` as a JSON string literal, escaping what RFC 8259 requires.
    static func appendJSONString(_ value: String, to text: inout String) {
        text += "\""
        // Most strings need no escape: appended whole rather than scalar by scalar (answers
        // encode every parameter's key and value so).
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            text += value
            text += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
