import HTTP1
import Testing

@Suite struct HTTPResponseEncoderTests {
    @Test func headHasStatusDateFieldsAndLength() {
        var bytes: [UInt8] = []
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        HTTPResponseEncoder.writeHead(status: 404, headers: headers, contentLength: 2, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 404 Not Found\r\nDate: "))
        #expect(text.hasSuffix(" GMT\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n"))
    }

    /// Status lines are copied from a table made once; each must read as the line built as a
    /// string did, byte for byte, for every status (those outside the table too).
    @Test func everyStatusLineIsTheOneBuiltAsAString() {
        for status in Array(-1...1_000) + [10_000, Int.max] {
            var bytes: [UInt8] = []
            HTTPResponseEncoder.writeStart(status: status, headers: HTTPHeaders(), into: &bytes)
            let line = Array("HTTP/1.1 \(status) \(HTTPResponseEncoder.reasonPhrase(status))\r\n".utf8)
            #expect(Array(bytes.prefix(line.count)) == line, "status \(status)")
            #expect(bytes.dropFirst(line.count).starts(with: "Date: ".utf8), "status \(status)")
        }
    }

    @Test(arguments: [0, 7, 10, 99, 10_277, 2_097_152])
    func okHeadsCarryTheExactLength(_ length: Int) {
        var bytes: [UInt8] = []
        HTTPResponseEncoder.writeHead(status: 200, headers: HTTPHeaders(), contentLength: length, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nDate: "))
        #expect(text.hasSuffix(" GMT\r\nContent-Length: \(length)\r\n\r\n"))
    }

    @Test func chunksAreHexFramedAndEmptyChunksSkipped() {
        var bytes: [UInt8] = []
        HTTPResponseEncoder.writeChunk(Array(repeating: 0x61, count: 26), into: &bytes)
        HTTPResponseEncoder.writeChunk([], into: &bytes)
        HTTPResponseEncoder.writeLastChunk(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "1a\r\n" + String(repeating: "a", count: 26) + "\r\n0\r\n\r\n")
    }

    @Test func headersAreOrderedAndReplaceable() {
        var headers = HTTPHeaders()
        headers.add(name: "A", value: "1")
        headers.add(name: "b", value: "2")
        headers.add(name: "a", value: "3")
        #expect(headers.values("a") == ["1", "3"])
        headers.replace(name: "A", value: "4")
        #expect(headers.values("a") == ["4"])
        #expect(headers["B"] == "2")
    }

    @Test func headersRemoveEveryMatchAndKeepTheRestInOrder() {
        var headers = HTTPHeaders([("X-A", "1"), ("Vary", "Origin"), ("x-a", "2"), ("X-AB", "3")])
        headers.remove(name: "X-a")
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["Vary=Origin", "X-AB=3"])
        #expect(!headers.contains("x-a"))
        #expect(headers["x-ab"] == "3")
        #expect(headers["x-abc"] == nil)
        #expect(headers == HTTPHeaders([("Vary", "Origin"), ("X-AB", "3")]))
        #expect(headers != HTTPHeaders([("Vary", "Origin"), ("X-Ab", "3")]))
        headers.remove(name: "Absent")
        #expect(headers.count == 2)
    }

    @Test func fieldsAreEncodedAsLinesInOrder() {
        let headers = HTTPHeaders([("ETag", "\"e-1\""), ("Content-Type", "application/json"), ("Empty", "")])
        #expect(HTTPResponseEncoder.encode(fields: headers) == Array("ETag: \"e-1\"\r\nContent-Type: application/json\r\nEmpty: \r\n".utf8))
    }
}
