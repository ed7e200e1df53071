@testable import ServerCore
import HTTP1
import Testing

/// Query parameters read as Google's APIs read them: lowerCamelCase or snake_case.
@Suite struct RequestURIParameterTests {
    @Test(arguments: [
        ("/v1?pageToken=a", "a"),
        ("/v1?page_token=b", "b"),
        ("/v1?page_token=b&pageToken=a", "a"),
        ("/v1?pageToken=a&pageToken=c", "a"),
        ("/v1?page_token=b&page_token=c", "b"),
        ("/v1?pagetoken=x&PageToken=y&page-token=z", nil),
        ("/v1", nil),
    ] as [(String, String?)])
    func aParameterIsFoundInEitherSpellingAndCamelCaseWins(_ target: String, _ expected: String?) {
        #expect(RequestURI(target: target).parameter("pageToken") == expected)
    }

    @Test func everyWordOfALongerNameIsSeparated() {
        #expect(RequestURI(target: "/v1?end_version_number=7").parameter("endVersionNumber") == "7")
        #expect(RequestURI(target: "/v1?validate_only=true").parameter("validateOnly") == "true")
    }

    @Test func aOneWordNameHasOneSpelling() {
        #expect(RequestURI(target: "/v1?percent=5").parameter("percent") == "5")
        #expect(RequestURI(target: "/v1?_percent=5").parameter("percent") == nil)
    }

    @Test func anEmptyValueIsAValue() {
        #expect(RequestURI(target: "/v1?pageToken=&page_token=b").parameter("pageToken") == "")
    }
}
