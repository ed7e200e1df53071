import ConfigCore
import Testing

@Suite struct TemplateETagTests {
    @Test func formats() {
        #expect(TemplateETag(projectNumber: "123456789012", versionNumber: 42).description == "etag-123456789012-42")
        #expect(TemplateETag.validateOnly(projectNumber: "123456789012").description == "etag-123456789012-0")
        #expect("\(TemplateETag(projectNumber: "1", versionNumber: Int64.max))" == "etag-1-9223372036854775807")
    }

    @Test(arguments: [
        ("etag-123456789012-42", "123456789012", Int64(42)),
        ("etag-123456789012-0", "123456789012", 0),
        ("\"etag-123456789012-6\"", "123456789012", 6),
        ("etag-007-9223372036854775807", "007", Int64.max),
    ])
    func parses(text: String, projectNumber: String, version: Int64) throws {
        let etag = try #require(TemplateETag(text))
        #expect(etag.projectNumber == projectNumber)
        #expect(etag.versionNumber == version)
        #expect(try TemplateETag.parse(text) == etag)
    }

    @Test(arguments: [
        "", "*", "etag", "etag-", "etag--", "etag-123-", "etag--4", "etag-12a-4", "etag-123-4-5", "ETAG-1-2",
        "etag-1-+2", "etag-1--2", "etag-1-9223372036854775808", " etag-1-2", "W/\"etag-1-2\"", "\"etag-1-2",
        "etag-123456789012-firebase-fetch-1862036199",
    ])
    func rejects(text: String) {
        #expect(TemplateETag(text) == nil)
        #expect(throws: TemplateValidationError(issues: [.init(
            path: "If-Match", message: "'\(text)' is not a template ETag; expected etag-<projectNumber>-<versionNumber>"
        )])) {
            try TemplateETag.parse(text)
        }
    }

    @Test func roundTrips() {
        let etag = TemplateETag(projectNumber: "98765", versionNumber: 300)
        #expect(TemplateETag(etag.description) == etag)
    }
}
