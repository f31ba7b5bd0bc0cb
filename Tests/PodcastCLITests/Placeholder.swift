import Testing
@Test func cliPlaceholder() { #expect(true) }
