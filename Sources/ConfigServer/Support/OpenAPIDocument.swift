/// The OpenAPI description of the HTTP API, served at `/openapi.json`.
///
/// `docs/openapi.yaml` is the source; `scripts/openapi-json` turns it into `text`
/// (`OpenAPIDocument+JSON*.swift`), so every binary and image serves it without a file to install.
enum OpenAPIDocument {
    static let json: [UInt8] = Array(text.utf8)
}
