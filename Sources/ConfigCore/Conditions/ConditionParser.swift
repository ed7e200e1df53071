/// Recursive-descent parser for client-template condition expressions (protocol notes §6).
///
/// Grammar, loosest first:
///
///     expression := and ('||' and)*
///     and        := unary ('&&' unary)*
///     unary      := '!' unary | '(' expression ')' | 'true' | 'false' | rule
///
/// Rules are parsed in `ConditionParser+Rules.swift`.
struct ConditionParser {
    /// Longest accepted expression, in characters.
    static let maxLength = 10_000
    /// Deepest nesting of parentheses and `!`, so hostile input cannot exhaust the stack.
    static let maxDepth = 64

    private let tokens: [ConditionToken]
    var index = 0
    private var depth = 0

    static func parse(_ source: String) throws(ConditionSyntaxError) -> ConditionNode {
        let length = source.count
        if length > maxLength {
            throw ConditionSyntaxError(message: "expression longer than \(maxLength) characters", offset: maxLength)
        }
        var parser = ConditionParser(tokens: try ConditionLexer.tokens(of: source))
        if parser.current.kind == .end {
            throw ConditionSyntaxError(message: "empty expression", offset: parser.current.offset)
        }
        let node = try parser.parseOr()
        if parser.current.kind != .end {
            let token = parser.current
            throw ConditionSyntaxError(message: "unexpected \(token.quoted); expected '&&', '||' or the end", offset: token.offset)
        }
        return node
    }

    private init(tokens: [ConditionToken]) {
        self.tokens = tokens
    }

    // MARK: Token access

    var current: ConditionToken { tokens[index] }

    func peek(_ ahead: Int) -> ConditionToken {
        tokens[min(index + ahead, tokens.count - 1)]
    }

    mutating func advance() -> ConditionToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    mutating func take(_ kind: ConditionToken.Kind) -> Bool {
        guard current.kind == kind else { return false }
        index += 1
        return true
    }

    func error(_ message: String, at token: ConditionToken? = nil) -> ConditionSyntaxError {
        ConditionSyntaxError(message: message, offset: (token ?? current).offset)
    }

    /// Consumes `kind` or throws "expected `what` ..." at the current token.
    mutating func expect(_ kind: ConditionToken.Kind, _ what: String) throws(ConditionSyntaxError) {
        guard take(kind) else { throw error("expected \(what), found \(current.quoted)") }
    }

    mutating func expectIdentifier(_ name: String) throws(ConditionSyntaxError) {
        try expect(.identifier(name), "'\(name)'")
    }

    mutating func string(_ what: String) throws(ConditionSyntaxError) -> (String, ConditionToken) {
        let token = current
        guard case .string(let value) = token.kind else {
            throw error("expected \(what) (a quoted string), found \(token.quoted)")
        }
        index += 1
        return (value, token)
    }

    mutating func number(_ what: String) throws(ConditionSyntaxError) -> (String, ConditionToken) {
        let token = current
        guard case .number(let text) = token.kind else {
            throw error("expected \(what), found \(token.quoted)")
        }
        index += 1
        return (text, token)
    }

    /// `[ 'a', 'b', ... ]` with at least one string; returns the values with their tokens and
    /// the '[' token.
    mutating func stringList(
        _ what: String
    ) throws(ConditionSyntaxError) -> (values: [(value: String, token: ConditionToken)], open: ConditionToken) {
        let open = current
        try expect(.leftBracket, "'[' to start the list of \(what)")
        var values: [(value: String, token: ConditionToken)] = []
        repeat {
            if current.kind == .rightBracket, values.isEmpty {
                throw error("the list of \(what) is empty")
            }
            let (value, token) = try string("a value in the list of \(what)")
            values.append((value, token))
        } while take(.comma)
        try expect(.rightBracket, "']' after the list of \(what)")
        return (values, open)
    }

    // MARK: Boolean structure

    private mutating func parseOr() throws(ConditionSyntaxError) -> ConditionNode {
        var nodes: [ConditionNode] = []
        repeat {
            // `(a || b) || c` is one flat list.
            switch try parseAnd() {
            case .any(let inner): nodes.append(contentsOf: inner)
            case let node: nodes.append(node)
            }
        } while take(.or)
        return nodes.count == 1 ? nodes[0] : .any(nodes)
    }

    private mutating func parseAnd() throws(ConditionSyntaxError) -> ConditionNode {
        var nodes: [ConditionNode] = []
        repeat {
            switch try parseUnary() {
            case .all(let inner): nodes.append(contentsOf: inner)
            case let node: nodes.append(node)
            }
        } while take(.and)
        return nodes.count == 1 ? nodes[0] : .all(nodes)
    }

    private mutating func parseUnary() throws(ConditionSyntaxError) -> ConditionNode {
        let token = current
        switch token.kind {
        case .not:
            try enter(token)
            index += 1
            let operand = try parseUnary()
            depth -= 1
            return .not(operand, offset: token.offset)
        case .leftParenthesis:
            try enter(token)
            index += 1
            let inner = try parseOr()
            guard take(.rightParenthesis) else {
                throw error("expected ')' to close the '(' at offset \(token.offset), found \(current.quoted)")
            }
            depth -= 1
            return inner
        case .identifier("true"):
            index += 1
            return .constant(true)
        case .identifier("false"):
            index += 1
            return .constant(false)
        case .identifier:
            return .rule(try parseRule(), offset: token.offset)
        case .end:
            throw error("unexpected end of expression; expected a condition")
        default:
            throw error("expected a condition, '(' or '!', found \(token.quoted)")
        }
    }

    private mutating func enter(_ token: ConditionToken) throws(ConditionSyntaxError) {
        depth += 1
        if depth > ConditionParser.maxDepth {
            throw error("expression nests deeper than \(ConditionParser.maxDepth) levels", at: token)
        }
    }
}
