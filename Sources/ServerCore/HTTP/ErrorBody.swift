package import EventLoop
import HTTP1

/// Google's error envelope, the one every Firebase client and Admin SDK understands.
package enum ErrorBody {
    /// `{"error":{"code": …,"message":"…","status":"…"}}` as UTF-8 bytes. The space after
    /// `"code":` is Google's spacing: iOS looks for the text `"code": 403` in a stream's error
    /// (spec §4.3, §4.7).
    ///
    /// With `fieldViolations`, the error also carries them as Google's `details` do:
    /// `[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field","description"}]}]`,
    /// so a tool reads each problem and where it is without parsing the message.
    static func encode(status: Int, message: String, canonicalStatus: String? = nil, fieldViolations: [FieldViolation] = []) -> [UInt8] {
        let name = canonicalStatus ?? canonicalName(for: status)
        var text = "{\"error\":{\"code\": \(status),\"message\":"
        appendJSONString(message, to: &text)
        text += ",\"status\":\"\(name)\""
        if !fieldViolations.isEmpty {
            text += ",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.BadRequest\",\"fieldViolations\":["
            for (index, violation) in fieldViolations.enumerated() {
                text += index == 0 ? "{\"field\":" : ",{\"field\":"
                appendJSONString(violation.field, to: &text)
                text += ",\"description\":"
                appendJSONString(violation.description, to: &text)
                text += "}"
            }
            text += "]}]"
        }
        text += "}}"
        return Array(text.utf8)
    }

    /// One problem of a request and where it is (`google.rpc.BadRequest.FieldViolation`):
    /// `field` is a path in the body, e.g. `parameters.welcome.conditionalValues.ios`, empty for
    /// the body as a whole.
    package struct FieldViolation: Sendable, Equatable {
        package let field: String
        package let description: String
    }

    /// The format of the errors the HTTP server answers by itself, so that they read like
    /// every other error of the API.
    package static let format = ErrorBodyFormat(contentType: HTTPResponse.jsonContentType) { status, message in
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
    package static func appendJSONString(_ value: String, to text: inout String) {
        // Most strings need no escape: appended whole (answers encode every key and value so).
        guard value.utf8.contains(where: isEscaped) else {
            text += "\""
            text += value
            text += "\""
            return
        }
        var bytes: [UInt8] = []
        appendJSONString(value, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// The same literal appended to bytes: `"`, `\` and the bytes below 0x20
    /// escaped (`\n`, `\r`, `\t`, else `\u00xx`), every other byte, those of non-ASCII
    /// characters included, as it is.
    static func appendJSONString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            guard utf8.contains(where: isEscaped) else { return bytes.append(contentsOf: utf8) }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
                case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case ..<0x20: bytes += Array("\\u00".utf8) + [lowerHex[Int(byte >> 4)], lowerHex[Int(byte & 0xF)]]
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let lowerHex = Array("0123456789abcdef".utf8)

    private static func isEscaped(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
