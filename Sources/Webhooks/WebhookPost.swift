import Foundation
import OutboundHTTP

/// One webhook attempt, on the calling thread (never an event loop): a POST to the URL,
/// connected to the address that was just checked, with a time-out, no redirect, no proxy, and
/// only the start of the answer kept.
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

    /// An answer longer than 64 KiB is cut off there: nothing reads it. A proxy from the
    /// environment would connect elsewhere than the address checked. No encoding is offered:
    /// the log keeps the answer's first bytes as sent, and nothing is spent decoding the rest.
    private static let transport = CurlTransport(
        options: .init(usesEnvironmentProxy: false, acceptsEncodedBodies: false, readLimit: 64 * 1_024, keptLimit: keptBytes))

    /// POSTs `body` to `url` (whose host and port `address` names), connecting to `connectTo`.
    static func send(
        url: String, address: WebhookAddress, connectTo: String, headers: [String: String], body: [UInt8], timeout: Double
    ) -> Outcome {
        // A host that is an address needs no resolving: the URL itself names what was checked.
        let pinned = address.hostIsAddress
            ? nil : HTTPRequest.PinnedAddress(host: address.host, port: address.port, address: connectTo)
        // All of the time-out may go to connecting (the default stops connecting at 30 s).
        let request = HTTPRequest(
            method: .post, url: url, headers: headers, body: Data(body), timeout: timeout, connectTimeout: timeout,
            pinnedAddress: pinned)
        do {
            let response = try transport.sendBlocking(request)
            return Outcome(status: response.status, response: Array(response.body), error: nil)
        } catch {
            // An answer that began and then broke off (a time-out mid-body) still has its status.
            let partial = error.partialResponse
            return Outcome(status: partial?.status, response: Array(partial?.body ?? Data()), error: error.message)
        }
    }
}
