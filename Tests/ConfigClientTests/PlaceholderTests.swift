import Testing

@Suite struct ConfigClientPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
