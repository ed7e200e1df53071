import ConfigCore
import OutboundHTTP
import ServerCore
@testable import SignIn
import Foundation
import Synchronization
import Testing

/// The provider client against scripted answers.
@Suite struct OIDCProviderTests {
    final class ScriptedTransport: HTTPTransport {
        let answers: Mutex<[String: [HTTPResponse]]>
        let requests = Mutex<[String]>([])

        init(_ answers: [String: [HTTPResponse]]) { self.answers = Mutex(answers) }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            requests.withLock { $0.append(request.url) }
            guard let answer = answers.withLock({ list -> HTTPResponse? in
                guard var queue = list[request.url], !queue.isEmpty else { return nil }
                let first = queue.removeFirst()
                list[request.url] = queue.isEmpty ? [first] : queue
                return first
            }) else { throw TransportError(.connectionFailed, "\(request.url): connection refused") }
            return answer
        }

        func stream(_ request: HTTPRequest, onEvent: @escaping @Sendable (StreamEvent) -> Void) -> any StreamHandle {
            fatalError("not used")
        }
    }

    static let issuer = "https://idp.example.com"

    static func json(_ text: String) -> HTTPResponse { HTTPResponse(status: 200, body: Data(text.utf8)) }

    static let discovery = json(#"{"issuer":"https://idp.example.com","authorization_endpoint":"https://idp.example.com/a","#
        + #""token_endpoint":"https://idp.example.com/t","jwks_uri":"https://idp.example.com/k"}"#)

    func make(_ answers: [String: [HTTPResponse]]) -> (OIDCProvider, ScriptedTransport) {
        var settings = SignInSettings()
        settings.issuer = Self.issuer
        settings.clientID = "rcs-console"
        let transport = ScriptedTransport(answers)
        return (OIDCProvider(settings: settings, clock: SystemClock(), transport: transport), transport)
    }

    @Test func discoveryMustNameTheConfiguredIssuer() async {
        let wrong = Self.json(#"{"issuer":"https://evil.example.com","authorization_endpoint":"a","token_endpoint":"t","jwks_uri":"k"}"#)
        let (provider, _) = make(["https://idp.example.com/.well-known/openid-configuration": [wrong]])
        do {
            _ = try await provider.endpoints()
            Issue.record("a discovery document naming another issuer was accepted")
        } catch {
            #expect(error.status == 502 && error.message.contains("evil.example.com"), "\(error.message)")
        }
        let (down, _) = make([:])
        do {
            _ = try await down.endpoints()
            Issue.record("a provider that is down gave endpoints")
        } catch {
            #expect(error.status == 502 && error.message.contains("did not answer"), "\(error.message)")
        }
    }

    @Test func anUnknownKeyFetchesTheKeysAgainOnce() async throws {
        let token = IDTokenVerifierTests.tokens["validRS256"]!
        let (provider, transport) = make([
            "https://idp.example.com/.well-known/openid-configuration": [Self.discovery],
            // First the set before the provider's rotation, then the one with the token's key.
            "https://idp.example.com/k": [Self.json(#"{"keys":[]}"#), Self.json(IDTokenVerifierTests.jwks)],
        ])
        do {
            _ = try await provider.verify(token, nonce: "n-123")
            Issue.record("a token issued in 2030 was accepted")
        } catch {
            // Past the key: the token is refused for its time (issued in 2030), not for its key.
            #expect(error.message.contains("issued in the future"), "\(error.message)")
        }
        #expect(transport.requests.withLock { $0.filter { $0.hasSuffix("/k") }.count } == 2)
    }

    @Test func aRefusedCodeSaysWhy() async {
        let refusal = HTTPResponse(status: 400, body: Data(#"{"error":"invalid_grant","error_description":"code expired"}"#.utf8))
        let (provider, _) = make([
            "https://idp.example.com/.well-known/openid-configuration": [Self.discovery], "https://idp.example.com/t": [refusal],
        ])
        do {
            _ = try await provider.idToken(code: "c", verifier: "v", redirectURI: "https://rc/auth/oidc/callback")
            Issue.record("a refused code gave a token")
        } catch {
            #expect(error.status == 502 && error.message.contains("invalid_grant: code expired"), "\(error.message)")
        }
    }
}
