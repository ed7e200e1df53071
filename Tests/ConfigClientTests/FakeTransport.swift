import Foundation
import Synchronization
@testable import ConfigClient

/// Answers `send` from a script and records every request; streams are not supported here.
final class FakeTransport: HTTPTransport {
    private let script: Mutex<[Result<HTTPResponse, TransportError>]>
    private let recorded = Mutex<[HTTPRequest]>([])

    init(_ script: [Result<HTTPResponse, TransportError>] = []) {
        self.script = Mutex(script)
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else { throw TransportError(.connectionFailed, "\(request.url): Connection refused") }
        return try next.get()
    }

    func stream(_ request: HTTPRequest, onEvent: @escaping @Sendable (StreamEvent) -> Void) -> any StreamHandle {
        fatalError("FakeTransport does not stream")
    }
}

/// A fetch answer with `entries`.
func fetchAnswer(_ entries: [String: String], version: Int64, etag: String = "etag-1", state: String = "UPDATE") -> Result<HTTPResponse, TransportError> {
    let body: [String: Any] = ["entries": entries, "state": state, "templateVersion": String(version)]
    let data = try! JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
    return .success(HTTPResponse(status: 200, headers: ["ETag": etag], body: data))
}

func testConfiguration(baseURL: String = "http://127.0.0.1:9", cacheDirectory: URL? = nil) -> ClientConfiguration {
    var configuration = ClientConfiguration(
        baseURL: baseURL,
        project: "example-project",
        apiKey: "key-1",
        appId: "1:123456789012:web:0a1b2c3d4e5f6789",
        appInstanceId: "instance-1",
        cacheDirectory: cacheDirectory
    )
    configuration.context = ClientContext(countryCode: "DE", customSignals: ["plan": "pro"])
    return configuration
}
