import Testing

@Suite struct ConfigServerPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
