import Foundation

extension ConditionParser {
    /// An element name, its key for `app.userProperty['k']`/`app.customSignal['k']`, and a
    /// method name that followed it in the same dotted chain.
    struct ElementReference {
        let element: ConditionElement
        let token: ConditionToken
        var key: String?
        var method: (name: String, token: ConditionToken)?

        var name: String { element.rawValue + (key.map { "['\($0)']" } ?? "") }
    }

    mutating func parseRule() throws(ConditionSyntaxError) -> ConditionRule {
        if current.kind == .identifier("version"), peek(1).kind == .leftParenthesis {
            return try parseVersionFunction()
        }
        let reference = try parseElementReference()
        switch reference.element {
        case .appId, .appVersion, .appBuild, .operatingSystemAndVersion, .browserAndVersion,
             .userProperty, .customSignal:
            return try parseValueRule(reference)
        case .deviceOS:
            try expectNoMethod(reference)
            return try parsePlatformRule(reference)
        case .country, .language, .installationId:
            try expectNoMethod(reference)
            return try parseMembershipRule(reference)
        case .audiences, .importedSegments:
            guard let method = reference.method, ConditionElement.audienceMethods.contains(method.name) else {
                throw error("expected .inAtLeastOne, .inAll, .notInAtLeastOne or .notInAll after \(reference.name)",
                            at: reference.method?.token)
            }
            try expect(.leftParenthesis, "'(' after .\(method.name)")
            _ = try stringList("names")
            try expect(.rightParenthesis, "')' after the list")
            return .unavailable(reference.name)
        case .firstOpen, .dateTime, .deviceDateTime:
            try expectNoMethod(reference)
            return try parseDateRule(reference)
        case .percent:
            try expectNoMethod(reference)
            return try parsePercentRule()
        }
    }

    /// `app.version`, `app.customSignal['k']`, `app.audiences.inAll` and the like.
    mutating func parseElementReference() throws(ConditionSyntaxError) -> ElementReference {
        let start = current
        guard case .identifier(let first) = start.kind else {
            throw error("expected an element name, found \(start.quoted)")
        }
        var segments: [(name: String, token: ConditionToken)] = [(first, advance())]
        while current.kind == .dot, case .identifier(let name) = peek(1).kind {
            _ = advance()
            segments.append((name, advance()))
        }
        for count in stride(from: segments.count, to: 0, by: -1) {
            let name = segments[..<count].map(\.name).joined(separator: ".")
            guard let element = ConditionElement(rawValue: name) else { continue }
            if segments.count > count + 1 {
                throw error("unexpected '.\(segments[count + 1].name)' after .\(segments[count].name)",
                            at: segments[count + 1].token)
            }
            var reference = ElementReference(element: element, token: start)
            if count < segments.count { reference.method = segments[count] }
            if element == .userProperty || element == .customSignal {
                try parseKey(&reference)
            }
            return reference
        }
        let name = segments.map(\.name).joined(separator: ".")
        throw error("unknown element '\(name)'", at: start)
    }

    private mutating func parseKey(_ reference: inout ElementReference) throws(ConditionSyntaxError) {
        guard reference.method == nil, current.kind == .leftBracket else {
            throw error("expected ['key'] after \(reference.element.rawValue)", at: reference.method?.token)
        }
        _ = advance()
        let (key, keyToken) = try string("a key")
        if key.isEmpty { throw error("the key of \(reference.element.rawValue) is empty", at: keyToken) }
        try expect(.rightBracket, "']' after the key")
        reference.key = key
        // A method after the key: `.contains(...)` or a version comparison `.>=(...)`.
        if current.kind == .dot {
            _ = advance()
            let token = current
            switch token.kind {
            case .identifier(let name):
                _ = advance()
                reference.method = (name, token)
            case .comparison(let comparison):
                _ = advance()
                reference.method = (comparison.symbol, token)
            default:
                throw error("expected a method name after '.', found \(token.quoted)")
            }
        }
    }

    private func expectNoMethod(_ reference: ElementReference) throws(ConditionSyntaxError) {
        if let method = reference.method {
            throw error("\(reference.name) has no method '\(method.name)'", at: method.token)
        }
    }

    private func valueElement(_ reference: ElementReference) -> ValueElement {
        switch reference.element {
        case .appId: .appId
        case .appVersion: .appVersion
        case .appBuild: .appBuild
        case .userProperty: .userProperty(reference.key ?? "")
        case .customSignal: .customSignal(reference.key ?? "")
        default: .unavailable(reference.name)
        }
    }

    /// Rules on string values: methods, `==`, `!=`, `in`, and numeric comparisons on
    /// user properties and custom signals.
    private mutating func parseValueRule(_ reference: ElementReference) throws(ConditionSyntaxError) -> ConditionRule {
        let element = valueElement(reference)
        // app.version and app.build take version comparisons as methods only: `.>=([...])`.
        if reference.element != .userProperty, reference.element != .customSignal,
           reference.method == nil, current.kind == .dot, case .comparison(let comparison) = peek(1).kind {
            _ = advance()
            let token = advance()
            return .value(element, try parseMethodCall(comparison.symbol, token: token, reference: reference))
        }
        if let method = reference.method {
            return .value(element, try parseMethodCall(method.name, token: method.token, reference: reference))
        }
        let token = current
        switch token.kind {
        case .identifier("in"):
            _ = advance()
            return .value(element, .equalsAny(try stringList("values").values.map(\.value)))
        case .comparison(let comparison):
            _ = advance()
            let numeric = reference.element == .userProperty || reference.element == .customSignal
            switch current.kind {
            case .string(let value) where comparison == .equal || comparison == .notEqual:
                _ = advance()
                return .value(element, comparison == .equal ? .equalsAny([value]) : .notEqual(value))
            case .number(let text) where numeric:
                let matcher = try signalMatcher(.numeric(comparison), targets: [(text, advance())])
                return .value(element, .signal(matcher))
            case .string, .number:
                if numeric {
                    throw error("expected a number after '\(comparison.symbol)' (compare versions with "
                                + "version(\(reference.name)) \(comparison.symbol) '1.0')")
                }
                throw error("expected '.' before '\(comparison.symbol)': compare with "
                            + "\(reference.name).\(comparison.symbol)(['1.0'])", at: token)
            default:
                throw error("expected a value after '\(comparison.symbol)', found \(current.quoted)")
            }
        default:
            throw error("expected an operator after \(reference.name) (==, !=, in, or a method such as "
                        + ".contains([...])), found \(token.quoted)")
        }
    }

    /// `.contains([...])`, `.matches([...])`, `.>=(['1.2'])` and the like.
    private mutating func parseMethodCall(
        _ name: String, token: ConditionToken, reference: ElementReference
    ) throws(ConditionSyntaxError) -> ValueTest {
        let signalOperator: CustomSignalOperator
        if let stringOperator = ConditionElement.stringMethods[name] {
            signalOperator = stringOperator
        } else if let comparison = ComparisonOperator(symbol: name) {
            signalOperator = .semanticVersion(comparison)
        } else {
            throw error("\(reference.name) has no method '\(name)' (expected contains, notContains, "
                        + "exactlyMatches, matches or a comparison such as .>=)", at: token)
        }
        try expect(.leftParenthesis, "'(' after .\(name)")
        let targets = try stringList("values").values
        try expect(.rightParenthesis, "')' after the list")
        return .signal(try signalMatcher(signalOperator, targets: targets))
    }

    private func signalMatcher(
        _ signalOperator: CustomSignalOperator, targets: [(value: String, token: ConditionToken)]
    ) throws(ConditionSyntaxError) -> SignalMatcher {
        do {
            return try SignalMatcher(signalOperator, targets: targets.map(\.value))
        } catch {
            throw self.error(error.message, at: targets[min(error.index, targets.count - 1)].token)
        }
    }

    /// `version(app.customSignal['v']) >= '1.2.0'`.
    private mutating func parseVersionFunction() throws(ConditionSyntaxError) -> ConditionRule {
        _ = advance()
        _ = advance()  // '('
        let reference = try parseElementReference()
        guard [.appVersion, .appBuild, .userProperty, .customSignal].contains(reference.element),
              reference.method == nil else {
            throw error("version() takes app.version, app.build, app.userProperty['k'] or app.customSignal['k']",
                        at: reference.token)
        }
        try expect(.rightParenthesis, "')' after version(\(reference.name)")
        guard case .comparison(let comparison) = current.kind else {
            throw error("expected a comparison after version(...), found \(current.quoted)")
        }
        _ = advance()
        let (version, token) = try string("a version")
        return .value(valueElement(reference), .signal(
            try signalMatcher(.semanticVersion(comparison), targets: [(version, token)])))
    }

    private mutating func parsePlatformRule(_ reference: ElementReference) throws(ConditionSyntaxError) -> ConditionRule {
        guard case .comparison(let comparison) = current.kind, comparison == .equal || comparison == .notEqual else {
            throw error("expected '==' or '!=' after device.os, found \(current.quoted)")
        }
        _ = advance()
        let (platform, token) = try string("a platform")
        let lowered = platform.lowercased()
        guard ConditionElement.platforms.contains(lowered) else {
            throw error("unknown platform '\(platform)' (expected 'android', 'ios' or 'web')", at: token)
        }
        return .platform(lowered, equal: comparison == .equal)
    }

    private mutating func parseMembershipRule(_ reference: ElementReference) throws(ConditionSyntaxError) -> ConditionRule {
        guard take(.identifier("in")) else {
            throw error("expected 'in' after \(reference.name), found \(current.quoted)")
        }
        let (list, open) = try stringList("values")
        let values = list.map(\.value)
        switch reference.element {
        case .country:
            return .country(values)
        case .language:
            return .language(values)
        default:
            if values.count > ConditionElement.maxInstallationIds {
                throw error("more than \(ConditionElement.maxInstallationIds) installation ids", at: open)
            }
            return .installationId(values)
        }
    }

    /// `dateTime < dateTime('2025-01-01T00:00:00', 'America/Los_Angeles')`,
    /// `app.firstOpenTimestamp <= ('2025-01-01T10:10:42')`.
    private mutating func parseDateRule(_ reference: ElementReference) throws(ConditionSyntaxError) -> ConditionRule {
        let operatorToken = current
        guard case .comparison(let comparison) = operatorToken.kind,
              comparison != .equal, comparison != .notEqual else {
            throw error("expected '<', '<=', '>' or '>=' after \(reference.name), found \(operatorToken.quoted)")
        }
        _ = advance()
        _ = take(.identifier("dateTime"))
        try expect(.leftParenthesis, "'(' before the date")
        let (text, textToken) = try string("a date")
        var timeZone: TimeZone?
        if take(.comma) {
            let (identifier, zoneToken) = try string("a time zone")
            guard let zone = TimeZone(identifier: identifier) else {
                throw error("unknown time zone '\(identifier)'", at: zoneToken)
            }
            timeZone = zone
        }
        try expect(.rightParenthesis, "')' after the date")
        let date: DateLiteral
        do {
            date = try DateLiteral(text: text, timeZone: timeZone)
        } catch {
            throw self.error(error.message, at: textToken)
        }
        return reference.element == .firstOpen ? .firstOpen(comparison, date) : .dateTime(comparison, date)
    }

    /// `percent <= 10`, `percent > 5`, `percent between 10 and 20`, `percent('seed') <= 10`.
    private mutating func parsePercentRule() throws(ConditionSyntaxError) -> ConditionRule {
        var seed: String?
        if take(.leftParenthesis) {
            let (value, token) = try string("a seed")
            guard PercentRule.isValidSeed(value) else {
                throw error("invalid percent seed '\(value)': up to 32 of A-Z, a-z, 0-9, '-', '_', '.'", at: token)
            }
            seed = value
            try expect(.rightParenthesis, "')' after the seed")
        }
        let token = current
        switch token.kind {
        case .comparison(.lessOrEqual):
            _ = advance()
            return .percent(seed: seed, PercentRule(.lessOrEqual, microPercent: try microPercent()))
        case .comparison(.greater):
            _ = advance()
            return .percent(seed: seed, PercentRule(.greaterThan, microPercent: try microPercent()))
        case .identifier("between"):
            _ = advance()
            let lower = try microPercent()
            try expectIdentifier("and")
            let upperToken = current
            let upper = try microPercent()
            if upper < lower { throw error("the upper bound of 'between' is below the lower bound", at: upperToken) }
            return .percent(seed: seed, PercentRule(.between, lowerBound: lower, upperBound: upper))
        default:
            throw error("percent takes '<=', '>' or 'between', found \(token.quoted)")
        }
    }

    /// A percentage 0...100 with up to 6 decimals, in micro-percent.
    private mutating func microPercent() throws(ConditionSyntaxError) -> UInt64 {
        let (text, token) = try number("a percentage")
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !text.hasPrefix("-"), fraction.count <= 6, let whole = UInt64(parts[0]), whole <= 100,
              let decimals = UInt64(fraction.padding(toLength: 6, withPad: "0", startingAt: 0)) else {
            throw error("percentage \(text) must be 0 to 100 with at most 6 decimals", at: token)
        }
        let value = whole * 1_000_000 + decimals
        guard value <= PercentBucket.microPercentScale else {
            throw error("percentage \(text) must be 0 to 100 with at most 6 decimals", at: token)
        }
        return value
    }
}
