// libFuzzer target for condition expressions (Sources/ConfigCore/Conditions), compiled together
// with those sources by scripts/fuzz. The input is the expression text. Besides crashes it
// checks invariants and stops with fatalError (a crash to libFuzzer) when one breaks:
//
// - a syntax error's offset lies inside the expression;
// - an accepted expression evaluates like `(e)`, `!!(e)`, `(e) && true`, `false || (e)`, and
//   `!(e)` evaluates to the opposite, for clients built from the expression's own literals;
// - a server-template conversion reads back as the same condition;
// - each string literal that compiles as a regular expression P matches like `(?:P)` and `(?:P)|(?:P)`.

import Foundation

/// A fixed clock, so a failing input reproduces.
let fuzzNow = Date(timeIntervalSince1970: 1_750_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConditions(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let source = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let literals = (try? ConditionLexer.tokens(of: source))?.compactMap(\.literal) ?? []
    for pattern in literals.prefix(4) { RegexInvariants.verify(pattern, subjects: literals) }

    let expression: ConditionExpression
    do {
        expression = try ConditionExpression.parse(source)
    } catch {
        check(error.offset >= 0 && error.offset <= source.count, "error offset \(error.offset) outside the text", source)
        return 0
    }
    check(expression.source == source, "source not kept", source)
    let contexts = Contexts.from(literals)
    for context in contexts {
        ExpressionInvariants.verify(expression, in: context)
    }
    if let server = try? expression.serverCondition() {
        guard let again = try? ServerCondition(json: server.json) else { fail("server JSON does not read back", source) }
        check(again == server, "server JSON reads back differently", source)
        for context in contexts { _ = server.evaluate(in: context) }
    }
    return 0
}

extension ConditionToken {
    /// The text of a string or number token.
    var literal: String? {
        switch kind {
        case .string(let value): value
        case .number(let text): text
        default: nil
        }
    }
}

enum Contexts {
    /// Clients that make rules on the expression's literals both hold and fail: one with no
    /// inputs, one whose every input is a literal, and one where each quoted key maps to the
    /// literal that follows it (`app.customSignal['level'] >= 5` sees level = 5).
    static func from(_ literals: [String]) -> [EvaluationContext] {
        let first = literals.first ?? "2.1.0"
        var pairs: [String: String] = [:]
        for (key, value) in zip(literals, literals.dropFirst()) where pairs[key] == nil { pairs[key] = value }
        let identity = Dictionary(literals.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
        let full = EvaluationContext(
            appId: "1:123456789012:ios:0a1b2c3d4e5f6789", appVersion: first, appBuild: literals.last ?? "400",
            platform: "ios", countryCode: "US", languageCode: "en-US", appInstanceId: first,
            customSignals: pairs, userProperties: pairs, firstOpenTime: fuzzNow.addingTimeInterval(-86_400 * 400),
            timeZone: "America/Los_Angeles", now: fuzzNow, defaultPercentSeed: "seed")
        var mirrored = full
        mirrored.customSignals = identity
        mirrored.userProperties = identity
        mirrored.appInstanceId = literals.last ?? "other"
        mirrored.platform = "android"
        mirrored.appVersion = literals.last
        return [EvaluationContext(now: fuzzNow), full, mirrored]
    }
}

enum ExpressionInvariants {
    static func verify(_ expression: ConditionExpression, in context: EvaluationContext) {
        let source = expression.source
        let value = expression.evaluate(in: context)
        check(expression.evaluate(in: context) == value, "evaluation is not repeatable", source)
        for (template, expected) in [("(#)", value), ("!!(#)", value), ("(#) && true", value), ("false || (#)", value),
                                     ("(#) && (#)", value), ("!(#)", !value)] {
            let wrapped = template.replacingOccurrences(of: "#", with: source)
            let parsed: ConditionExpression
            do {
                parsed = try ConditionExpression.parse(wrapped)
            } catch {
                // Only the limits may refuse what they refused nothing of before.
                check(error.message.contains("nests deeper") || error.message.contains("longer than"),
                                     "\(template) does not parse: \(error)", source)
                continue
            }
            check(parsed.evaluate(in: context) == expected, "\(template) evaluates differently", source)
        }
    }
}

enum RegexInvariants {
    static func verify(_ pattern: String, subjects: [String]) {
        guard !pattern.contains("\\Q"), let regex = try? LinearRegex(pattern) else { return }
        let texts = subjects.prefix(6) + ["", pattern, "2.1.0", "ab\nc"]
        // Each alternative in its own group: a bare "(?m)" holds to the end of its group, across
        // a "|" (as in RE2), so "P|P" is not P when P sets flags.
        for variant in ["(?:\(pattern))", "(?:\(pattern))|(?:\(pattern))"] {
            let other: LinearRegex
            do {
                other = try LinearRegex(variant)
            } catch {
                // Only the bounds on nesting and program size may refuse the variant.
                check(error.message.hasPrefix("groups nest deeper") || error.message == "pattern too large",
                      "\(variant) does not compile: \(error.message)", pattern)
                continue
            }
            for text in texts {
                check(regex.matches(in: text) == other.matches(in: text),
                                     "\(variant) and \(pattern) disagree on \(text.debugDescription)", pattern)
            }
        }
    }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String, _ input: String) {
    if !condition { fail(message(), input) }
}

func fail(_ message: String, _ input: String) -> Never {
    fatalError("invariant broken: \(message)\ninput: \(input.debugDescription)")
}
