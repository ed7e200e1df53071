import CCurl
import Foundation

/// One webhook attempt through libcurl, on the calling thread (never an event loop): a POST to
/// the URL, connected to the address that was just checked, with a time-out, no redirect, no
/// proxy, and only the start of the answer kept.
enum WebhookPost {
    /// What came back.
    struct Outcome: Sendable {
        /// nil when no answer came (refused, timed out, …).
        var status: Int?
        /// The start of the answer's body (at most `keptBytes`).
        var response: [UInt8]
        var error: String?
    }

    /// How much of an answer is kept in the delivery log.
    static let keptBytes = 1_024
    /// An answer longer than this is cut off: nothing reads it.
    private static let readLimit = 64 * 1_024

    private static let globalInit: Void = {
        // Not thread-safe in older libcurl: once, before any handle.
        _ = rcs_curl_global_init()
    }()

    /// Reads the answer's body up to `readLimit`, keeping `keptBytes`.
    private final class Sink {
        var kept: [UInt8] = []
        var read = 0
    }

    /// POSTs `body` to `url` (whose host and port `address` names), connecting to `connectTo`.
    static func send(
        url: String, address: WebhookAddress, connectTo: String, headers: [String: String], body: [UInt8], timeout: Double
    ) -> Outcome {
        globalInit
        guard let handle = curl_easy_init() else { return Outcome(status: nil, response: [], error: "curl_easy_init failed") }
        let sink = Sink()
        var headerList: UnsafeMutablePointer<curl_slist>?
        var resolveList: UnsafeMutablePointer<curl_slist>?
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer {
            curl_easy_cleanup(handle)
            curl_slist_free_all(headerList)
            curl_slist_free_all(resolveList)
            errorBuffer.deallocate()
        }
        let milliseconds = max(1, Int(timeout * 1_000))
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = url.withCString { rcs_curl_setopt_ptr(handle, CURLOPT_URL, $0) }
        // Several threads use curl: no signals for time-outs.
        _ = rcs_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = rcs_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
        _ = rcs_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        _ = rcs_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        _ = "http,https".withCString { rcs_curl_setopt_ptr(handle, CURLOPT_PROTOCOLS_STR, $0) }
        // A proxy from the environment would connect elsewhere than the address checked.
        _ = "*".withCString { rcs_curl_setopt_ptr(handle, CURLOPT_NOPROXY, $0) }
        if !address.hostIsAddress {
            let pinned = connectTo.contains(":") ? "[\(connectTo)]" : connectTo
            resolveList = curl_slist_append(resolveList, "\(address.host):\(address.port):\(pinned)")
            _ = rcs_curl_setopt_ptr(handle, CURLOPT_RESOLVE, resolveList)
        }
        _ = rcs_curl_setopt_long(handle, CURLOPT_POST, 1)
        _ = rcs_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
        _ = body.withUnsafeBytes { rcs_curl_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(errorBuffer)) }
        for field in headers.sorted(by: { $0.key < $1.key }).map({ "\($0.key): \($0.value)" }) + ["Expect:"] {
            headerList = curl_slist_append(headerList, field)
        }
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList)
        _ = rcs_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
        _ = rcs_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            let room = max(0, WebhookPost.keptBytes - sink.kept.count)
            if room > 0, let bytes {
                sink.kept += UnsafeRawBufferPointer(start: bytes, count: min(room, length))
            }
            sink.read += length
            // A short count stops the transfer: enough was read.
            return sink.read > WebhookPost.readLimit ? 0 : length
        }
        let code = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        var status = 0
        _ = rcs_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let answered = status > 0 ? status : nil
        if code == CURLE_OK || (code == CURLE_WRITE_ERROR && answered != nil) {
            return Outcome(status: answered, response: sink.kept, error: nil)
        }
        let detail = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        return Outcome(status: answered, response: sink.kept, error: detail)
    }
}
