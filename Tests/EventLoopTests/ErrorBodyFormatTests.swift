import EventLoop
import HTTP1
import Testing

/// The transport's own error answers speak no API's format unless the handler names one.
@Suite struct ErrorBodyFormatTests {
    /// A handler that names no error format.
    struct SilentHandler: HTTPRequestHandler {
        func handle(_ request: HTTPRequest, context: RequestContext, responder: Responder) {}
    }

    @Test func aHandlerThatNamesNoFormatGetsPlainText() {
        let format = SilentHandler().errorBodyFormat
        #expect(format.contentType == "text/plain; charset=utf-8")
        #expect(format.encode(505, "Only HTTP/1.x is supported.") == Array("Only HTTP/1.x is supported.\n".utf8))
    }
}
