import Foundation
import Testing
@testable import ConfigClient
import TestSupport

@Suite struct InvalidationStreamParserTests {
    static let stream = Array("""
        {"latestTemplateVersionNumber": "12"}
        {"latestTemplateVersionNumber": 13, "retryIntervalSeconds": 60}
        {"featureDisabled": true}

        """.utf8)
    static let expected = [
        InvalidationMessage(latestTemplateVersionNumber: 12),
        InvalidationMessage(latestTemplateVersionNumber: 13, retryIntervalSeconds: 60),
        InvalidationMessage(featureDisabled: true),
    ]

    private func parse(_ chunks: [ArraySlice<UInt8>]) throws -> [InvalidationMessage] {
        var parser = InvalidationStreamParser()
        return try chunks.flatMap { try parser.append($0) }
    }

    @Test func wholeStreamInOneChunk() throws {
        #expect(try parse([Self.stream[...]]) == Self.expected)
    }

    @Test func byteByByte() throws {
        #expect(try parse(Self.stream.indices.map { Self.stream[$0...$0] }) == Self.expected)
    }

    @Test(arguments: 1..<60)
    func splitAtEveryOffset(_ cut: Int) throws {
        #expect(try parse([Self.stream[..<cut], Self.stream[cut...]]) == Self.expected)
    }

    @Test func randomSplits() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var chunks: [ArraySlice<UInt8>] = []
            var start = 0
            while start < Self.stream.count {
                let end = min(Self.stream.count, start + Int.random(in: 1...9, using: &generator))
                chunks.append(Self.stream[start..<end])
                start = end
            }
            #expect(try parse(chunks) == Self.expected)
        }
    }

    @Test func messageIsReportedWhenItsClosingBraceArrives() throws {
        var parser = InvalidationStreamParser()
        #expect(try parser.append(Array(#"{"latestTemplateVersionNumber":"#.utf8)).isEmpty)
        #expect(try parser.append(Array(#" "5"}"#.utf8)) == [InvalidationMessage(latestTemplateVersionNumber: 5)])
    }

    @Test func arrayFramingAndBracesInStrings() throws {
        let text = #"[{"latestTemplateVersionNumber": "1", "note": "a } and { inside"},{"latestTemplateVersionNumber": "2"}]"#
        #expect(try parse([Array(text.utf8)[...]]) == [
            InvalidationMessage(latestTemplateVersionNumber: 1),
            InvalidationMessage(latestTemplateVersionNumber: 2),
        ])
    }

    @Test func unknownFieldsAreIgnored() throws {
        #expect(try parse([Array(#"{"other": {"nested": 1}}"#.utf8)[...]]) == [InvalidationMessage()])
    }

    @Test func invalidMessageNamesItsOffset() throws {
        var parser = InvalidationStreamParser()
        _ = try parser.append(Array("{\"latestTemplateVersionNumber\": \"1\"}\n".utf8))
        let error = try #require(throws: InvalidationStreamError.self) {
            try parser.append(Array(#"{"latestTemplateVersionNumber": "x1"}"#.utf8))
        }
        #expect(error.offset == 37)
        #expect(error.description.contains("latestTemplateVersionNumber"))
    }

    @Test func parserContinuesAfterAnInvalidMessage() throws {
        var parser = InvalidationStreamParser()
        _ = try? parser.append(Array(#"{"featureDisabled": "maybe"}"#.utf8))
        #expect(try parser.append(Array(#"{"latestTemplateVersionNumber": 4}"#.utf8)) == [InvalidationMessage(latestTemplateVersionNumber: 4)])
    }

    @Test func unterminatedMessageLongerThanTheLimitFails() throws {
        var parser = InvalidationStreamParser(maximumMessageSize: 32)
        #expect(try parser.append(Array(#"{"latestTemplateVersionNumber": "#.utf8)).isEmpty)
        #expect(throws: InvalidationStreamError.self) {
            try parser.append(Array(repeating: UInt8(ascii: " "), count: 16))
        }
    }

    @Test func messageOfExactlyTheLimitPasses() throws {
        let message = Array(#"{"latestTemplateVersionNumber":7}"#.utf8)
        var parser = InvalidationStreamParser(maximumMessageSize: message.count)
        #expect(try parser.append(message.dropLast()).isEmpty)
        #expect(try parser.append(message.suffix(1)) == [InvalidationMessage(latestTemplateVersionNumber: 7)])
    }
}
