import CLinuxIO
import Foundation
import TestSupport

/// The calls a fault test makes to a node, each with a time limit and its duration measured:
/// a call that gets no answer in time is an outcome to record, not a test error.
enum NodeCalls {
    /// What one call came back with.
    struct Answer {
        /// nil: no answer within the limit, or the connection failed.
        var status: Int?
        var text = ""
        var version: Int64?
        /// The parameter `k` the answer carries (a publish's content, a fetch's value).
        var value: String?
        var seconds: Double
        var etag: String?

        /// The server said it cannot tell whether the write committed.
        var outcomeUnknown: Bool { status == 503 && text.contains("OUTCOME_UNKNOWN") }
    }

    static let project = "example-project"

    /// `PUT …/remoteConfig` with `k` = `value`, unconditionally (If-Match: *).
    static func publish(_ port: Int, _ value: String, limit: Int = 10, project: String = project) -> Answer {
        call(port, limit: limit, "PUT", "/v1/projects/\(project)/remoteConfig",
             headers: [("Authorization", "Bearer dev-admin-token"), ("If-Match", "*")],
             body: "{\"parameters\":{\"k\":{\"defaultValue\":{\"value\":\"\(value)\"}}}}") { answer, response in
            answer.etag = response.header("ETag")
            answer.version = answer.etag.flatMap { Int64($0.split(separator: "-").last ?? "") }
        }
    }

    /// Publishes `value-1`, `value-2`, … until one is acknowledged (a node may still be
    /// reconnecting) or `seconds` passed; `attempted` sees each try with its value.
    static func publishUntilAcknowledged(_ port: () -> Int?, _ value: String, within seconds: Double,
                                         attempted: (String, Answer) -> Void = { _, _ in }) -> Answer? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var attempt = 0
        while Date() < deadline {
            guard let port = port() else { continue }
            attempt += 1
            var answer = publish(port, "\(value)-\(attempt)", limit: 5)
            answer.value = "\(value)-\(attempt)"
            attempted(answer.value ?? "", answer)
            if answer.status == 200 { return answer }
            // A client's retry after a refusal comes a moment later.
            letTimePass(seconds: 0.1)
        }
        return nil
    }

    /// A client fetch (`…/namespaces/firebase:fetch`), of the example project unless told.
    static func fetch(_ port: Int, limit: Int = 10, instance: String = "i1", projectNumber: String = "123456789012",
                      apiKey: String = "example-api-key") -> Answer {
        call(port, limit: limit, "POST", "/v1/projects/\(projectNumber)/namespaces/firebase:fetch",
             headers: [("X-Goog-Api-Key", apiKey)],
             body: "{\"appInstanceId\":\"\(instance)\",\"appId\":\"1:\(projectNumber):android:ab\"}") { answer, response in
            guard let json = try? response.json() else { return }
            answer.version = (json["templateVersion"] as? String).flatMap { Int64($0) }
            answer.value = (json["entries"] as? [String: Any])?["k"] as? String
        }
    }

    /// `GET /readyz`: 200 while the node's worker that answers can read the store, 503 while not.
    static func readiness(_ port: Int, limit: Int = 1) -> Answer {
        call(port, limit: limit, "GET", "/readyz", headers: [])
    }

    /// Creates a project and a client API key for it: the key, or nil.
    static func createProject(_ port: Int, id: String, number: String) -> String? {
        let admin = [("Authorization", "Bearer dev-admin-token")]
        guard call(port, limit: 5, "POST", "/v1/projects", headers: admin,
                   body: "{\"projectId\":\"\(id)\",\"projectNumber\":\"\(number)\"}").status == 200
        else { return nil }
        let key = call(port, limit: 5, "POST", "/v1/projects/\(id)/apiKeys", headers: admin, body: "{\"name\":\"app\"}")
        return (try? JSONSerialization.jsonObject(with: Data(key.text.utf8)) as? [String: Any])?["key"] as? String
    }

    /// Every retained version, newest first, with its `k` (read through `port`).
    static func versions(_ port: Int, limit: Int = 10) throws -> [(version: Int64, value: String?)] {
        let list = call(port, limit: limit, "GET", "/v1/projects/\(project)/remoteConfig:listVersions?pageSize=300",
                        headers: [("Authorization", "Bearer dev-admin-token")])
        guard list.status == 200, let json = try? JSONSerialization.jsonObject(with: Data(list.text.utf8)) as? [String: Any],
              let rows = json["versions"] as? [[String: Any]]
        else { throw TestFailure("cannot list versions: \(list.status.map(String.init) ?? "no answer") \(list.text)") }
        return try rows.compactMap { ($0["versionNumber"] as? String).flatMap { Int64($0) } }.map { number in
            let one = call(port, limit: limit, "GET", "/v1/projects/\(project)/remoteConfig?versionNumber=\(number)",
                           headers: [("Authorization", "Bearer dev-admin-token")])
            guard one.status == 200 else { throw TestFailure("cannot read version \(number): \(one.text)") }
            return (number, value(in: one.text))
        }
    }

    /// `k`'s default value in a template's JSON.
    static func value(in template: String) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(template.utf8)) as? [String: Any],
              let parameters = json["parameters"] as? [String: Any], let k = parameters["k"] as? [String: Any],
              let value = (k["defaultValue"] as? [String: Any])?["value"] as? String
        else { return nil }
        return value
    }

    private static func call(_ port: Int, limit: Int, _ method: String, _ target: String, headers: [(String, String)],
                             body: String = "", read: (inout Answer, TestResponse) -> Void = { _, _ in }) -> Answer {
        let start = rcs_monotonic_nanos()
        var seconds: Double { Double(rcs_monotonic_nanos() - start) / 1e9 }
        do {
            let client = try TestClient(port: port, timeoutSeconds: limit)
            try client.send(TestClient.format(method, target, headers: headers, body: Array(body.utf8)))
            let response = try client.readResponse()
            var answer = Answer(status: response.status, text: response.text, seconds: seconds)
            read(&answer, response)
            if method == "PUT", response.status == 200 { answer.value = value(in: response.text) }
            return answer
        } catch {
            return Answer(status: nil, text: "\(error)", seconds: seconds)
        }
    }
}
