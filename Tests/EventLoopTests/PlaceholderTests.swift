import Testing

@Suite struct EventLoopPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
