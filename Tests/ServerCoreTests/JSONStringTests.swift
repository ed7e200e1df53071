@testable import ServerCore
import Foundation
import Testing

/// `ErrorBody.appendJSONString`, which encodes every key and value of the answers, to a string
/// and to bytes: a string with nothing to escape is appended whole, any other byte by byte;
/// both read back as the string they were made from.
struct JSONStringTests {
    @Test(arguments: [
        "", "plain", "v1-cccccccccccccccccccccccc", "héllo ✓ 😀", "{\"a\":1}", "back\\slash", "line\nbreak\r\t",
        "\u{0}\u{1}\u{1F}\u{7F}", "quote \" and é", "\u{2028}",
    ])
    func readsBackAsItsString(_ value: String) throws {
        var text = "["
        ErrorBody.appendJSONString(value, to: &text)
        text += "]"
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
        #expect(decoded == [value], "\(text)")
        var bytes = Array("[".utf8)
        ErrorBody.appendJSONString(value, to: &bytes)
        #expect(bytes + Array("]".utf8) == Array(text.utf8), "the same literal as bytes")
    }

    @Test func onlyWhatRFC8259RequiresIsEscaped() {
        var text = ""
        ErrorBody.appendJSONString("a\"b\\c\u{1}/é", to: &text)
        #expect(text == "\"a\\\"b\\\\c\\u0001/é\"")
    }
}
