@testable import HTTP1
import Testing

@Suite struct RequestLineTests {
    /// A common method is recognized from its bytes; it must read exactly as the method decoded
    /// from them, and any other token (methods are case-sensitive) is decoded.
    @Test(arguments: [
        "GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS", "CONNECT", "get", "Post", "GETS", "PUTS", "POSTS",
        "HEAP", "PATCHY", "DELETED", "OPTION", "CONNECTS", "G", "M-SEARCH", "BREW", "TRACE", "PROPFIND", "OPTIONZ", "CONNECX",
    ])
    func methodsReadAsTheirDecodedToken(_ token: String) {
        let method = Array(token.utf8).withUnsafeBufferPointer { HTTPMethod(token: $0) }
        #expect(method == HTTPMethod(rawValue: token))
        #expect(Array(method.rawValue.utf8) == Array(token.utf8))
    }

    /// The word-at-a-time check agrees with the byte-by-byte one for every byte value at every
    /// position of targets that end inside and outside a word.
    @Test func visibleASCIIIsCheckedAsByteByByte() {
        func expected(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F } }
        func checked(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer(RequestLine.isVisibleASCII) }
        #expect(checked([]))
        for length in 1...20 {
            for position in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    #expect(checked(bytes) == expected(bytes), "byte \(byte) at \(position) of \(length)")
                    // A second byte after a bad one, and the boundary values beside it.
                    if position + 1 < length {
                        bytes[position + 1] = byte &+ 1
                        #expect(checked(bytes) == expected(bytes), "bytes \(byte), \(byte &+ 1) at \(position) of \(length)")
                    }
                }
            }
        }
    }
}
