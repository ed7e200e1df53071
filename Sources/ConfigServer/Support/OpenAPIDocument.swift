import Foundation

/// The OpenAPI description of the HTTP API, served at `/openapi.json` when installed next to
/// the migrations (`docs/openapi.json` in the source tree, or `RCS_OPENAPI_FILE`).
enum OpenAPIDocument {
    static let json: [UInt8]? = {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["RCS_OPENAPI_FILE"], "docs/openapi.json", "/usr/share/remote-config-server/openapi.json"]
        for case let path? in candidates {
            if let data = FileManager.default.contents(atPath: path) { return Array(data) }
        }
        return nil
    }()
}
