import ConfigCore
import Foundation
import Testing

@Suite struct TemplateTimestampTests {
    @Test(arguments: [
        ("2026-03-04T10:15:30Z", "2026-03-04T10:15:30.000Z"),
        ("2026-03-04T10:15:30.1Z", "2026-03-04T10:15:30.100Z"),
        ("2026-03-04T10:15:30.123456Z", "2026-03-04T10:15:30.123456Z"),
        ("2026-03-04T10:15:30.123456789Z", "2026-03-04T10:15:30.123456789Z"),
        ("2026-03-04T10:15:30.1234Z", "2026-03-04T10:15:30.123400Z"),
        ("2026-03-04t10:15:30z", "2026-03-04T10:15:30.000Z"),
        ("2026-03-04T12:15:30.5+02:00", "2026-03-04T10:15:30.500Z"),
        ("2026-03-04T00:15:30-01:30", "2026-03-04T01:45:30.000Z"),
        ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"),
        ("2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
    ])
    func parsesAndFormats(input: String, output: String) throws {
        let timestamp = try #require(Timestamp(rfc3339: input))
        #expect(timestamp.rfc3339 == output)
        #expect(Timestamp(rfc3339: output) == timestamp)
    }

    @Test(arguments: [
        "", "2026-03-04", "2026-03-04T10:15:30", "2026-3-04T10:15:30Z", "2026-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-03-04T24:00:00Z", "2026-03-04T10:60:00Z", "2026-03-04T10:15:60Z",
        "2026-03-04T10:15:30.Z", "2026-03-04T10:15:30.1234567890Z", "2026-03-04T10:15:30+0200",
        "2026-03-04T10:15:30Z ", "0000-01-01T00:00:00Z",
    ])
    func rejects(input: String) {
        #expect(Timestamp(rfc3339: input) == nil)
    }

    @Test func knownInstant() throws {
        let timestamp = try #require(Timestamp(rfc3339: "2026-03-04T10:15:30.25Z"))
        #expect(timestamp.seconds == 1_772_619_330)
        #expect(timestamp.nanoseconds == 250_000_000)
        #expect(timestamp.date == Date(timeIntervalSince1970: 1_772_619_330.25))
        #expect(Timestamp(timestamp.date) == timestamp)
        #expect(Timestamp(Date(timeIntervalSince1970: -0.5)).rfc3339 == "1969-12-31T23:59:59.500Z")
    }

    @Test func ordersByInstant() throws {
        let early = try #require(Timestamp(rfc3339: "2026-03-04T10:15:30.1Z"))
        let late = try #require(Timestamp(rfc3339: "2026-03-04T10:15:30.2Z"))
        #expect(early < late)
    }
}
