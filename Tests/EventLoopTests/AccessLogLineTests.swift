@testable import EventLoop
import Testing

@Suite struct AccessLogLineTests {
    let secrets: Set<String> = ["key", "access_token"]

    @Test(arguments: [
        ("/v1/projects/p/namespaces/firebase:fetch?key=AIza-secret", "/v1/projects/p/namespaces/firebase:fetch?key=REDACTED"),
        ("/a?alt=json&key=s3cret&b=1", "/a?alt=json&key=REDACTED&b=1"),
        ("/a?key=one&key=two", "/a?key=REDACTED&key=REDACTED"),
        ("/a?%6Bey=encoded-name", "/a?%6Bey=REDACTED"),           // the router decodes names too
        ("/a?access_token=t&keys=kept", "/a?access_token=REDACTED&keys=kept"),
        ("/a?key", "/a?key=REDACTED"),
        ("/a?monkey=kept&keyx=kept", "/a?monkey=kept&keyx=kept"),
        ("/a/key=not-a-query", "/a/key=not-a-query"),
        ("/a", "/a"),
    ])
    func secretQueryValuesNeverReachTheLog(_ target: String, _ logged: String) {
        #expect(AccessLogLine.redacting(target, secrets: secrets) == logged)
    }

    @Test func nothingIsRedactedWhenNoParameterIsSecret() {
        #expect(AccessLogLine.redacting("/a?key=v", secrets: []) == "/a?key=v")
    }
}
