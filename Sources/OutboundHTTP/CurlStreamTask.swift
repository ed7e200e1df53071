import CCurl
import Foundation
import Synchronization

/// The state shared between a stream thread and `cancel()` callers.
final class CurlStreamTask: StreamHandle {
    /// A multi handle pointer.
    // @unchecked: it is only reached through `shared`'s lock, so it is never woken after being
    // freed (curl_multi_wakeup is documented as callable from any thread).
    private struct MultiHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    private struct Shared {
        var multi: MultiHandle?
        var cancelled = false
    }

    // The multi pointer is only used under the lock: wakeup from other threads, cleanup by
    // the stream thread, so it is never woken after being freed.
    private let shared = Mutex(Shared())
    private let cancellation = CancellationFlag()

    func cancel() {
        cancellation.set()
        shared.withLock { state in
            state.cancelled = true
            if let multi = state.multi { _ = curl_multi_wakeup(multi.pointer) }
        }
    }

    /// Drives the transfer on the current thread until it ends or is cancelled.
    func run(_ request: HTTPRequest, options: CurlTransport.Options, onEvent: @escaping @Sendable (StreamEvent) -> Void) {
        let sink = CurlTransferSink(
            cancellation: cancellation,
            onHead: { onEvent(.head(status: $0, headers: $1)) },
            onData: { onEvent(.data($0)) }
        )
        let easy: CurlEasy
        do {
            easy = try CurlEasy(request: request, options: options, sink: sink, streaming: true)
        } catch {
            onEvent(.end(error))
            return
        }
        guard let multi = curl_multi_init() else {
            onEvent(.end(TransportError(.failed, "\(request.url): curl_multi_init failed")))
            return
        }
        let handle = MultiHandle(pointer: multi)
        let alreadyCancelled = shared.withLock { state in
            state.multi = handle
            return state.cancelled
        }
        _ = curl_multi_add_handle(multi, easy.handle)
        let outcome = alreadyCancelled ? nil : drive(multi)
        shared.withLock { state in
            _ = curl_multi_remove_handle(multi, easy.handle)
            _ = curl_multi_cleanup(multi)
            state.multi = nil
        }
        if cancellation.isSet {
            onEvent(.end(TransportError(.cancelled, "\(request.method.rawValue) \(request.url): cancelled")))
        } else if let outcome, outcome == CURLE_OK {
            onEvent(.end(nil))
        } else {
            onEvent(.end(easy.error(for: outcome ?? CURLE_FAILED_INIT)))
        }
    }

    /// Returns the transfer's result, or `nil` when cancelled first.
    private func drive(_ multi: UnsafeMutableRawPointer) -> CURLcode? {
        var running: Int32 = 1
        while !cancellation.isSet {
            let status = curl_multi_perform(multi, &running)
            guard status == CURLM_OK else { return CURLE_FAILED_INIT }
            if running == 0 {
                var remaining: Int32 = 0
                while let message = curl_multi_info_read(multi, &remaining) {
                    if message.pointee.msg == CURLMSG_DONE { return rcs_curl_msg_result(message) }
                }
                return CURLE_OK
            }
            // Sleeps until socket activity, curl's next timeout, or a wakeup from cancel().
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        return nil
    }
}
