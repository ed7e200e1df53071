import Testing

@Suite struct ConfigCorePlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
