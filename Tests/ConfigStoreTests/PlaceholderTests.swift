import Testing

@Suite struct ConfigStorePlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
