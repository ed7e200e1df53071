import Testing
@testable import ConfigCore

@Suite struct ConditionsRegexTests {
    @Test(arguments: [
        ("abc", "xxabcxx", true),              // partial match
        ("^abc", "xxabc", false),
        ("abc$", "abcx", false),
        ("^$", "", true),
        ("a|b|c", "zzc", true),
        ("^(ab|cd)+$", "abcdab", true),
        ("^(ab|cd)+$", "abcda", false),
        ("^a{2,3}$", "aaa", true),
        ("^a{2,3}$", "aaaa", false),
        ("^a{2}$", "aa", true),
        ("^a{2,}$", "aaaaaa", true),
        ("^a{,2}$", "a{,2}", true),            // malformed brace is a literal, as in RE2
        ("^a.c$", "a\nc", false),              // '.' excludes newline...
        ("(?s)^a.c$", "a\nc", true),           // ...unless (?s)
        ("^\\d+\\.\\d+$", "10.25", true),
        ("^[^0-9]+$", "abc", true),
        ("^[^0-9]+$", "ab1", false),
        ("^[a-c\\d_]+$", "ab_9", true),
        ("^[[:alpha:]]+$", "Word", true),
        ("^\\w+\\s\\W$", "hi !", true),
        ("\\bcat\\b", "a cat!", true),
        ("\\bcat\\b", "concat", false),
        ("\\Bcat", "concat", true),
        ("(?i)^GoLd$", "gold", true),
        ("^(?i:g)old$", "Gold", true),
        ("^(?i:g)old$", "GOLD", false),
        ("(?i)[a-c]", "B", true),
        ("(?i)[^a-c]", "B", false),
        ("(?m)^b$", "a\nb\nc", true),
        ("^b$", "a\nb\nc", false),
        ("a(?i)b|c", "C", true),                // a bare flag group holds to the end of its group, across "|" (RE2)
        ("(?:a(?i)b)|c", "C", false),
        ("\\Aab\\z", "ab", true),
        ("^\\x41\\x{263A}$", "A☺", true),
        ("^é+$", "éé", true),
        ("\\Q.*\\E", "a.*b", true),
        ("\\Q.*\\E", "ab", false),
        ("^(?P<major>\\d+)\\.", "12.3", true),
        ("^(a*)*$", "aaaa", true),              // empty loops terminate
        ("^(a|)+b$", "aaab", true),
        ("colou?r", "color", true),
        ("^a+?b*?$", "aab", true),
    ])
    func matches(_ pattern: String, _ text: String, _ expected: Bool) throws {
        #expect(try LinearRegex(pattern).matches(in: text) == expected)
    }

    @Test(arguments: [
        ("(ab", "missing ')'", 0),
        ("ab)", "unexpected ')'", 2),
        ("*a", "missing argument to repetition operator", 0),
        ("a**", "bad repetition operator", 2),
        ("[a-", "missing ']'", 0),
        ("[z-a]", "invalid character class range", 1),
        ("a{1001}", "repetition count above 1000", 1),
        ("a{3,2}", "invalid repetition range", 1),
        ("(a)\\1", "backreferences are not supported", 3),
        ("(?=a)", "lookahead is not supported", 0),
        ("(?<=a)b", "lookbehind is not supported", 0),
        ("\\pL", "Unicode classes (\\p) are not supported", 0),
        ("\\q", "invalid escape \\q", 0),
        // \x takes exactly two hex digits, or any number in braces, and nothing else.
        ("a\\x1", "invalid escape \\x", 1),
        ("(?:\\x1)", "invalid escape \\x", 3),
        ("\\x+4", "invalid escape \\x", 0),
        ("\\x{+41}", "invalid escape \\x", 0),
        ("\\x{}", "invalid escape \\x", 0),
        ("a\\", "trailing backslash", 1),
        ("[[:nope:]]", "invalid character class", 1),
        ("((((a{1000}){1000}){1000}))", "pattern too large", 0),
    ] as [(String, String, Int)])
    func rejects(_ pattern: String, _ message: String, _ offset: Int) {
        #expect(throws: LinearRegex.SyntaxError(message: message, offset: offset)) {
            try LinearRegex(pattern)
        }
    }

    @Test func groupNestingIsBounded() {
        let deep = String(repeating: "(", count: 101) + "a" + String(repeating: ")", count: 101)
        #expect(throws: LinearRegex.SyntaxError(message: "groups nest deeper than 100", offset: 100)) {
            try LinearRegex(deep)
        }
    }

    @Test func catastrophicPatternsStayLinear() throws {
        let text = String(repeating: "a", count: 249) + "b"
        let start = ContinuousClock.now
        for _ in 0..<50 {
            #expect(try !LinearRegex("^(a+)+$").matches(in: text))
            #expect(try !LinearRegex("(a|aa)*c").matches(in: text))
            #expect(try LinearRegex("(a*)*b").matches(in: text))
        }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func textsOverTheSignalLimitNeverMatch() throws {
        let regex = try LinearRegex("a")
        #expect(regex.matches(in: String(repeating: "a", count: 250)))
        #expect(!regex.matches(in: String(repeating: "a", count: 251)))
        #expect(try LinearRegex("é").matches(in: String(repeating: "é", count: 250)))   // scalars, not bytes
    }
}
