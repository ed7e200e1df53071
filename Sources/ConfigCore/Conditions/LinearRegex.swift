/// A regular expression in RE2 syntax, matched in time linear in the input.
///
/// Firebase documents RE2 for `matches` / `STRING_CONTAINS_REGEX` rules, with partial matching
/// (`^`/`$` anchor). Patterns come from templates but the text comes from clients, so a
/// backtracking engine (ICU, `NSRegularExpression`) would let `(a+)+$` stall a fetch; this one
/// compiles to an NFA program and simulates it (Thompson/Pike), never backtracking.
///
/// Supported: literals, `.`, `[...]` classes with ranges, negation, Perl (`\d \w \s` and
/// negations) and POSIX (`[:alpha:]`) classes, `^ $ \A \z \b \B`, groups `(...)`, `(?:...)`,
/// `(?P<name>...)`, `(?<name>...)`, flags `(?imsU)` and `(?i:...)`, alternation, `* + ? {n}
/// {n,} {n,m}` and their lazy forms, `\Q...\E`, `\x41`, `\x{263A}`, `\t \n \r \f \v \a`.
/// Rejected as RE2 does: backreferences, lookaround, possessive quantifiers; also `\p{...}`.
struct LinearRegex: Sendable {
    /// A pattern that does not compile, with the offset (in Unicode scalars) of the problem.
    struct SyntaxError: Error, Equatable {
        let message: String
        let offset: Int
    }

    /// RE2's limit on a counted repetition.
    static let maxRepeat = 1000
    /// Bound on the compiled program, so nested counted repetitions cannot exhaust memory.
    static let maxInstructions = 20_000

    let pattern: String
    let program: RegexProgram

    init(_ pattern: String) throws(SyntaxError) {
        self.pattern = pattern
        var parser = RegexParser(Array(pattern.unicodeScalars))
        let node = try parser.parse()
        self.program = try RegexProgram(compiling: node)
    }

    /// Longest text matched, in Unicode scalars: Firebase's limit on custom-signal values used
    /// with regular expressions ("Quotas and limits"), which bounds the cost per evaluation.
    static let maxInputLength = 250

    /// Whether the pattern matches anywhere in `text`; always false for a text longer than
    /// `maxInputLength`.
    func matches(in text: String) -> Bool {
        guard text.utf8.count <= LinearRegex.maxInputLength
              || text.unicodeScalars.count <= LinearRegex.maxInputLength else { return false }
        return program.search(text)
    }
}

/// Zero-width assertions.
enum RegexAssertion: Sendable {
    case beginText, endText, beginLine, endLine, wordBoundary, notWordBoundary
}

/// Parsed regular expression.
indirect enum RegexNode: Sendable {
    case empty
    case set(RegexCharSet)
    case anyCharacter(matchesNewline: Bool)
    case assertion(RegexAssertion)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    case repetition(RegexNode, min: Int, max: Int?)
}
