import Foundation

/// The answer of a fetch (HTTP 200 only; errors become ``ConfigClientError``).
struct FetchResponse: Sendable, Equatable {
    /// `state` of the answer. A missing or unknown state counts as an update, as Android does.
    enum State: String, Sendable {
        case update = "UPDATE"
        case noChange = "NO_CHANGE"
        case noTemplate = "NO_TEMPLATE"
        case emptyConfig = "EMPTY_CONFIG"
    }

    var state: State
    var entries: [String: String]
    var templateVersion: Int64
    var etag: String?
    var rollouts: RolloutAssignments = [:]

    private struct Body: Decodable {
        var state: String?
        var entries: [String: String]?
        var templateVersion: JSONInt64?
        var rolloutMetadata: [RolloutMetadata]?
        var error: ServerErrorBody?
    }

    /// One `rolloutMetadata` entry (spec §3.3).
    private struct RolloutMetadata: Decodable {
        var rolloutId: String
        var variantId: String
        var affectedParameterKeys: [String]
    }

    private struct ServerErrorBody: Decodable {}

    /// Decodes `response`, which must be a 200.
    /// - Throws: ``ConfigClientError/server(_:)`` for error statuses or a 200 carrying only an
    ///   error; ``ConfigClientError/invalidResponse(_:)`` naming the field that does not decode.
    static func decode(_ response: HTTPResponse) throws(ConfigClientError) -> FetchResponse {
        guard response.status == 200 else { throw .server(ServerError(response: response)) }
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: response.body)
        } catch {
            throw .invalidResponse("fetch answer: \(DecodingErrorDescription.describe(error))")
        }
        if body.error != nil, body.state == nil {
            throw .server(ServerError(response: response))
        }
        let state = body.state.flatMap(State.init(rawValue:)) ?? .update
        var rollouts: RolloutAssignments = [:]
        for rollout in body.rolloutMetadata ?? [] {
            for key in rollout.affectedParameterKeys {
                rollouts[key, default: [:]][rollout.rolloutId] = rollout.variantId
            }
        }
        return FetchResponse(
            state: state,
            entries: body.entries ?? [:],
            templateVersion: body.templateVersion?.value ?? 0,
            etag: response.header("etag"),
            rollouts: rollouts
        )
    }
}

/// Turns a `DecodingError` into a message naming the JSON path.
enum DecodingErrorDescription {
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "top level" : String(path.dropFirst(path.hasPrefix(".") ? 1 : 0))
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing field '\(key.stringValue)'"
        @unknown default:
            return String(describing: error)
        }
    }
}
