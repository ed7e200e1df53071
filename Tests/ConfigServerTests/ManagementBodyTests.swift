import ConfigServer
import Foundation
import Testing

/// Every JSON body of the management API is read strictly: a member it does not know, a value
/// of the wrong type, or bytes that are not UTF-8 are a 400 that names the problem, never
/// dropped or guessed at.
@Suite(.timeLimit(.minutes(1))) final class ManagementBodyTests {
    let server: TestServer

    init() throws {
        server = try TestServer()
        let principal = try server.admin("POST", "/v1/principals", body: #"{"kind":"service","displayName":"CI"}"#)
        #expect(principal.status == 200, "\(principal.text)")
    }

    static let template = "/v1/projects/demo/namespaces/firebase"

    /// (method, path, body, the member the refusal must name).
    @Test(arguments: [
        // Members no endpoint knows (a typo is not ignored).
        ("PUT", "\(template)/changePolicy", #"{"requiredApproval":2}"#, "requiredApproval"),
        ("POST", "/v1/principals", #"{"displayName":"Bot","ower":true}"#, "ower"),
        ("PUT", "/v1/projects/demo/members/svc-ci", #"{"role":"viewer","rol":"admin"}"#, "rol"),
        ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"t","role":{"demo":"viewer"}}"#, "role"),
        ("POST", "/v1/projects", #"{"projectId":"p9","projectNumber":"99","name":"P"}"#, "name"),
        ("POST", "/v1/projects/demo/apiKeys", #"{"nmae":"ios"}"#, "nmae"),
        ("POST", "/v1/projects/demo/remoteConfig:rollback", #"{"version":1}"#, "version"),
        ("POST", "/v1/projects/demo/remoteConfig:rollback?versionNumber=1", #"{"version":1}"#, "version"),
        ("POST", "\(template)/changeRequests/1:approve", #"{"coment":"fine"}"#, "coment"),
        ("POST", "\(template)/changeRequests", #"{"rollbackTo":1,"canary":{"step":"start","percnt":5}}"#, "canary.percnt"),
        ("POST", "\(template)/changeRequests", #"{"canary":{"step":"start","percent":[5]}}"#, "canary.percent"),
        // Values of the wrong type (not dropped, not turned into text).
        ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"t","roles":"viewer"}"#, "roles"),
        ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"t","roles":["viewer"]}"#, "roles"),
        ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"t","roles":7}"#, "roles"),
        ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":"t","roles":{"demo":1}}"#, "roles.demo"),
        ("POST", "/v1/tokens", #"{"principal":"svc-ci","name":7}"#, "name"),
        ("POST", "/v1/principals", #"{"displayName":"Bot","owner":"yes"}"#, "owner"),
        ("POST", "/v1/principals", #"{"displayName":5}"#, "displayName"),
        ("POST", "/v1/projects/demo/apiKeys", #"{"name":5}"#, "name"),
        ("PUT", "\(template)/changePolicy", #"{"allowSelfApproval":"yes"}"#, "allowSelfApproval"),
        ("PUT", "\(template)/changePolicy", #"{"requiredApprovals":1.5}"#, "requiredApprovals"),
        ("POST", "/v1/projects/demo/remoteConfig:rollback", #"{"versionNumber":true}"#, "versionNumber"),
        ("POST", "/v1/projects/demo/webhooks/w1:rotateSecret", #"{"overlapSeconds":true}"#, "overlapSeconds"),
    ])
    func aBodyWithAnUnknownMemberOrAWrongTypeIsRefusedNamingIt(_ method: String, _ path: String, _ body: String, _ field: String) throws {
        let response = try server.admin(method, path, body: body)
        #expect(response.status == 400 && response.errorStatus == "INVALID_ARGUMENT", "\(response.status) \(response.text)")
        let message = try #require((try response.json()["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("'\(field)'"), "\(message)")
    }

    /// A limit that is not an object used to be dropped: the token then held all its
    /// principal's roles.
    @Test func aTokenWhoseLimitIsNotAnObjectIsNotMade() throws {
        #expect(try server.admin("PUT", "/v1/projects/demo/members/svc-ci", body: #"{"role":"admin"}"#).status == 200)
        #expect(try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"t","roles":"viewer"}"#).status == 400)
        let tokens = try server.admin("GET", "/v1/tokens")
        #expect(!tokens.text.contains(#""principal":"svc-ci""#), "no token was made: \(tokens.text)")
    }

    /// A misspelt policy used to be stored as the default (no approvals).
    @Test func aMisspeltPolicyChangesNothing() throws {
        #expect(try server.admin("PUT", "\(Self.template)/changePolicy", body: #"{"requiredApprovals":2}"#).status == 200)
        #expect(try server.admin("PUT", "\(Self.template)/changePolicy", body: #"{"requiredApproval":0}"#).status == 400)
        #expect(try server.admin("PUT", "\(Self.template)/changePolicy", body: "").status == 400, "no body is not a reset")
        let policy = try server.admin("GET", "\(Self.template)/changePolicy")
        #expect(try policy.json()["requiredApprovals"] as? Int == 2, "\(policy.text)")
    }

    /// What the documented forms send keeps working: numbers as numbers or as text where
    /// Google's JSON writes an int64 as a string, and an empty body where nothing is required.
    @Test func theDocumentedFormsAreAccepted() throws {
        #expect(try server.publish(Templates.single("a")) == 1)
        #expect(try server.publish(Templates.single("b")) == 2)
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:rollback", body: #"{"versionNumber":1}"#).status == 200)
        #expect(try server.admin("POST", "/v1/projects/demo/remoteConfig:rollback", body: #"{"versionNumber":"2"}"#).status == 200)
        let token = try server.admin("POST", "/v1/tokens", body: #"{"principal":"svc-ci","name":"t","roles":{"demo":"viewer"}}"#)
        #expect(token.status == 200, "\(token.text)")
        let policy = #"{"requiredApprovals":1,"allowSelfApproval":true,"editorsMayPublish":false}"#
        #expect(try server.admin("PUT", "\(Self.template)/changePolicy", body: policy).status == 200)
        #expect(try server.admin("POST", "/v1/projects/demo/apiKeys", body: "").status == 200)
    }

    /// A management body is JSON as RFC 8259 writes it: the lenient forms an iOS SDK's fetch
    /// may send (unquoted names, single quotes), and a lone surrogate that could only be
    /// stored as U+FFFD, are refused.
    @Test(arguments: [
        #"{displayName: "Bot"}"#,
        #"{'displayName': 'Bot'}"#,
        #"{"displayName": "Bot \ud800"}"#,
    ])
    func aBodyThatIsNotStrictJSONIsRefused(_ body: String) throws {
        let response = try server.admin("POST", "/v1/principals", body: body)
        #expect(response.status == 400 && response.errorStatus == "INVALID_ARGUMENT", "\(response.status) \(response.text)")
        #expect(response.text.contains("not valid JSON"), "\(response.text)")
    }

    /// Bytes that are not UTF-8 used to be stored as U+FFFD.
    @Test(arguments: [
        ("POST", "/v1/principals", #"{"displayName":"Bot \#u{FF}"}"#),
        ("POST", "/v1/projects/demo/apiKeys", #"{"name":"ios \#u{FF}"}"#),
        ("PUT", "/v1/projects/demo/remoteConfig", #"{"parameters":{"k":{"defaultValue":{"value":"\#u{FF}"}}}}"#),
        ("POST", "/v1/projects/demo/remoteConfig:evaluate", #"{"appInstanceId":"\#u{FF}"}"#),
        ("POST", "/v1/projects/demo/webhooks", #"{"url":"https://example.com/","events":["test"],"description":"\#u{FF}"}"#),
    ])
    func aBodyThatIsNotUTF8IsRefused(_ method: String, _ path: String, _ body: String) throws {
        // U+00FF stands for the lone byte 0xFF (in UTF-8 it is two bytes, C3 BF).
        let bytes = Array(body.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        let client = try server.client()
        let headers = [("Authorization", "Bearer \(TestServer.adminToken)"), ("If-Match", "*")]
        try client.send(TestClient.format(method, path, headers: headers, body: bytes))
        let response = try client.readResponse()
        #expect(response.status == 400 && response.errorStatus == "INVALID_ARGUMENT", "\(response.status) \(response.text)")
        #expect(response.text.contains("not UTF-8"), "\(response.text)")
    }
}
