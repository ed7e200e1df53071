import CCurl
public import Foundation

/// ``HTTPTransport`` on libcurl. Plain requests run `curl_easy_perform` on a global dispatch
/// queue (or, with ``sendBlocking(_:)``, on the caller's thread); each stream gets a dedicated
/// thread driving a curl multi handle, so that `cancel()` can wake it at once with
/// `curl_multi_wakeup` even while the stream is idle.
public struct CurlTransport: HTTPTransport {
    /// What this transport does beyond sending each request as written.
    public let options: Options

    /// - Parameter options: proxy, encoding and body limits; the defaults suit a client that
    ///   calls a server it trusts.
    public init(options: Options = Options()) {
        self.options = options
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let cancellation = CancellationFlag()
        let result: Result<HTTPResponse, TransportError> = await withTaskCancellationHandler { [options] in
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: Self.perform(request, options: options, cancellation: cancellation))
                }
            }
        } onCancel: {
            cancellation.set()
        }
        return try result.get()
    }

    /// Sends `request` on the calling thread and returns the whole response, whatever its
    /// status: for callers on a thread of their own, never an event loop or a task.
    /// - Throws: ``TransportError`` when no complete response arrived.
    public func sendBlocking(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        try Self.perform(request, options: options, cancellation: CancellationFlag()).get()
    }

    private static func perform(
        _ request: HTTPRequest, options: Options, cancellation: CancellationFlag
    ) -> Result<HTTPResponse, TransportError> {
        var headers: [String: String] = [:]
        var body = Data()
        let sink = CurlTransferSink(
            cancellation: cancellation, readLimit: options.readLimit, keptLimit: options.keptLimit,
            onHead: { headers = $1 }, onData: { body.append($0) })
        let easy: CurlEasy
        do {
            easy = try CurlEasy(request: request, options: options, sink: sink, streaming: false)
        } catch {
            return .failure(error)
        }
        let code = easy.perform()
        let status = easy.responseCode
        // Past the read limit the sink stopped the transfer on purpose: what was read is the answer.
        if code == CURLE_OK || code == CURLE_WRITE_ERROR && sink.passedReadLimit && status > 0 {
            return .success(HTTPResponse(status: status, headers: headers, body: body))
        }
        var error = easy.error(for: code)
        if status > 0 { error.partialResponse = HTTPResponse(status: status, headers: headers, body: body) }
        return .failure(error)
    }

    public func stream(_ request: HTTPRequest, onEvent: @escaping @Sendable (StreamEvent) -> Void) -> any StreamHandle {
        let task = CurlStreamTask()
        let thread = Thread { [options] in task.run(request, options: options, onEvent: onEvent) }
        thread.name = "OutboundHTTP.stream"
        thread.start()
        return task
    }
}
