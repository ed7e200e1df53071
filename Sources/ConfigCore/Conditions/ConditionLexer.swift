/// One token of a condition expression, with its offset in characters.
struct ConditionToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// A decimal number as written, e.g. `-2.5`.
        case number(String)
        case leftParenthesis, rightParenthesis, leftBracket, rightBracket, comma, dot
        case and, or, not
        case comparison(ComparisonOperator)
        case end
    }

    let kind: Kind
    let offset: Int

    /// How the token reads in an error message.
    var quoted: String {
        switch kind {
        case .identifier(let name): "'\(name)'"
        case .string(let value): "string '\(value)'"
        case .number(let text): "number \(text)"
        case .leftParenthesis: "'('"
        case .rightParenthesis: "')'"
        case .leftBracket: "'['"
        case .rightBracket: "']'"
        case .comma: "','"
        case .dot: "'.'"
        case .and: "'&&'"
        case .or: "'||'"
        case .not: "'!'"
        case .comparison(let comparison): "'\(comparison.symbol)'"
        case .end: "end of expression"
        }
    }
}

/// Splits a condition expression into tokens.
///
/// Strings are quoted with `'` or `"`; inside them `\\`, `\'` and `\"` stand for the quoted
/// character and any other backslash is kept as written, so regular expressions such as
/// `'^2\..*'` need no doubling.
struct ConditionLexer {
    private let characters: [Character]
    private var position = 0

    init(_ source: String) {
        characters = Array(source)
    }

    static func tokens(of source: String) throws(ConditionSyntaxError) -> [ConditionToken] {
        var lexer = ConditionLexer(source)
        var tokens: [ConditionToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        position + ahead < characters.count ? characters[position + ahead] : nil
    }

    private mutating func next() throws(ConditionSyntaxError) -> ConditionToken {
        while let character = peek(), character.isWhitespace { position += 1 }
        let start = position
        guard let character = peek() else { return ConditionToken(kind: .end, offset: start) }
        position += 1

        func token(_ kind: ConditionToken.Kind) -> ConditionToken { ConditionToken(kind: kind, offset: start) }
        func pair(_ second: Character, _ kind: ConditionToken.Kind, else message: String) throws(ConditionSyntaxError) -> ConditionToken {
            guard peek() == second else { throw ConditionSyntaxError(message: message, offset: start) }
            position += 1
            return token(kind)
        }

        switch character {
        case "(": return token(.leftParenthesis)
        case ")": return token(.rightParenthesis)
        case "[": return token(.leftBracket)
        case "]": return token(.rightBracket)
        case ",": return token(.comma)
        case ".": return token(.dot)
        case "&": return try pair("&", .and, else: "expected '&&'")
        case "|": return try pair("|", .or, else: "expected '||'")
        case "=": return try pair("=", .comparison(.equal), else: "expected '==' (a single '=' is not an operator)")
        case "!":
            if peek() == "=" { position += 1; return token(.comparison(.notEqual)) }
            return token(.not)
        case "<", ">":
            var symbol = String(character)
            if peek() == "=" { position += 1; symbol.append("=") }
            return token(.comparison(ComparisonOperator(symbol: symbol)!))
        case "'", "\"":
            return token(.string(try string(quote: character, start: start)))
        default:
            if character.isASCII, character.isLetter || character == "_" {
                while let next = peek(), next.isASCII, next.isLetter || next.isNumber || next == "_" { position += 1 }
                return token(.identifier(String(characters[start..<position])))
            }
            if character.isASCII, character.isNumber || (character == "-" && isDigit(peek())) {
                while isDigit(peek()) { position += 1 }
                if peek() == ".", isDigit(peek(1)) {
                    position += 1
                    while isDigit(peek()) { position += 1 }
                }
                return token(.number(String(characters[start..<position])))
            }
            throw ConditionSyntaxError(message: "unexpected character '\(character)'", offset: start)
        }
    }

    private func isDigit(_ character: Character?) -> Bool {
        guard let character, character.isASCII else { return false }
        return character.isNumber
    }

    private mutating func string(quote: Character, start: Int) throws(ConditionSyntaxError) -> String {
        var value = ""
        while let character = peek() {
            position += 1
            if character == quote { return value }
            if character == "\\", let escaped = peek(), escaped == "\\" || escaped == "'" || escaped == "\"" {
                position += 1
                value.append(escaped)
            } else {
                value.append(character)
            }
        }
        throw ConditionSyntaxError(message: "unterminated string (missing closing \(quote))", offset: start)
    }
}
