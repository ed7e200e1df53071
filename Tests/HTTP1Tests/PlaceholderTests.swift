import Testing

@Suite struct HTTP1PlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
