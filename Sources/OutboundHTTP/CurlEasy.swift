import CCurl
import Foundation

/// One curl easy handle configured for one request. Not thread-safe: one thread drives it.
/// It owns the handle, the header and resolve lists and the error buffer and frees them exactly
/// once.
final class CurlEasy {
    static let globalInit: Void = {
        // curl_global_init is not thread-safe in older libcurl; run it once before any handle.
        _ = rcs_curl_global_init()
    }()

    let handle: UnsafeMutableRawPointer
    private let request: HTTPRequest
    private let sink: CurlTransferSink
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// - Parameters:
    ///   - request: what to send.
    ///   - options: the transport's proxy and encoding choices.
    ///   - sink: receives headers and body; kept alive by this object.
    ///   - streaming: when true only the connection phase is time-limited.
    init(request: HTTPRequest, options: CurlTransport.Options, sink: CurlTransferSink, streaming: Bool) throws(TransportError) {
        CurlEasy.globalInit
        guard let handle = curl_easy_init() else {
            throw TransportError(.failed, "\(request.method.rawValue) \(request.url): curl_easy_init failed")
        }
        self.handle = handle
        self.request = request
        self.sink = sink
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        configureConnection(options: options, streaming: streaming)
        configureRequest(acceptsEncodedBodies: options.acceptsEncodedBodies)
        installCallbacks()
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
        errorBuffer.deallocate()
    }

    /// Where and how the transfer connects, and for how long it may run.
    private func configureConnection(options: CurlTransport.Options, streaming: Bool) {
        let timeoutMs = max(1, Int(request.timeout * 1000))
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = request.url.withCString { rcs_curl_setopt_ptr(handle, CURLOPT_URL, $0) }
        // Several threads use curl: signals must not be used for timeouts.
        _ = rcs_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        let connectTimeoutMs = request.connectTimeout.map { max(1, Int($0 * 1000)) } ?? min(timeoutMs, 30_000)
        _ = rcs_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMs)
        if streaming {
            _ = rcs_curl_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1)
        } else {
            _ = rcs_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs)
        }
        // A redirect, or another scheme than HTTP's, would reach something the caller did not
        // name (for a webhook, an address nobody checked).
        _ = rcs_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = "http,https".withCString { rcs_curl_setopt_ptr(handle, CURLOPT_PROTOCOLS_STR, $0) }
        if !options.usesEnvironmentProxy {
            _ = "*".withCString { rcs_curl_setopt_ptr(handle, CURLOPT_NOPROXY, $0) }
        }
        if let pinned = request.pinnedAddress {
            resolveList = curl_slist_append(resolveList, pinned.resolveEntry)
            _ = rcs_curl_setopt_ptr(handle, CURLOPT_RESOLVE, resolveList)
        }
    }

    /// The method, headers and body.
    private func configureRequest(acceptsEncodedBodies: Bool) {
        if acceptsEncodedBodies {
            // An empty list offers every encoding curl decodes, and has it decode them.
            _ = "".withCString { rcs_curl_setopt_ptr(handle, CURLOPT_ACCEPT_ENCODING, $0) }
        }
        switch request.method {
        case .get:
            _ = rcs_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case .delete:
            _ = "DELETE".withCString { rcs_curl_setopt_ptr(handle, CURLOPT_CUSTOMREQUEST, $0) }
        case .post, .put, .patch:
            let body = request.body ?? Data()
            _ = rcs_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
            _ = body.withUnsafeBytes { rcs_curl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(errorBuffer)) }
            if request.method != .post {
                _ = request.method.rawValue.withCString { rcs_curl_setopt_ptr(handle, CURLOPT_CUSTOMREQUEST, $0) }
            }
        }
        // Sorted, so a request is sent the same way every time. An empty "Expect:" stops curl
        // from waiting for 100-continue on large bodies.
        var fields = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        fields.append("Expect:")
        for field in fields {
            headerList = curl_slist_append(headerList, field)
        }
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList)
    }

    private func installCallbacks() {
        let context = Unmanaged.passUnretained(sink).toOpaque()
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_HEADERDATA, context)
        _ = rcs_curl_setopt_write(handle, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
            let sink = Unmanaged<CurlTransferSink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
            sink.receiveHeaderLine(line)
            return length
        }
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, context)
        _ = rcs_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
            let sink = Unmanaged<CurlTransferSink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            // Returning a short count makes curl abort with CURLE_WRITE_ERROR.
            return sink.receiveBody(UnsafeRawBufferPointer(start: bytes, count: length)) ? length : 0
        }
        _ = rcs_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_XFERINFODATA, context)
        _ = rcs_curl_setopt_xferinfo(handle) { context, _, _, _, _ in
            let sink = Unmanaged<CurlTransferSink>.fromOpaque(context!).takeUnretainedValue()
            return sink.cancellation.isSet ? 1 : 0
        }
    }

    /// Runs the transfer to its end on the calling thread.
    func perform() -> CURLcode {
        curl_easy_perform(handle)
    }

    /// The status of the last response, or 0 if none arrived.
    var responseCode: Int {
        var code = 0
        _ = rcs_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// A ``TransportError`` for the failed transfer result `code`, naming the request.
    func error(for code: CURLcode) -> TransportError {
        let detail = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        let message = "\(request.method.rawValue) \(request.url): \(detail)"
        if sink.cancellation.isSet {
            return TransportError(.cancelled, "\(request.method.rawValue) \(request.url): cancelled")
        }
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR,
             CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return TransportError(.connectionFailed, message)
        case CURLE_OPERATION_TIMEDOUT:
            return TransportError(.timedOut, message)
        default:
            return TransportError(.failed, message)
        }
    }
}
