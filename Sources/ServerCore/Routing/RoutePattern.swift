/// A path as a route declares it, in the OpenAPI document's notation: `/`-separated segments,
/// each a literal (`apiKeys`) or a parameter (`{project}`), either followed by a custom method
/// after a colon (`remoteConfig:rollback`, `{namespace}:fetch`, `remoteConfig:{method}`), and
/// last, optionally, the rest of the path (`{file...}`, slashes and all, possibly empty).
struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    /// What one segment, or one side of its colon, must be.
    enum Part: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// One segment: `head`, or `head:verb` for a custom method. Two literals are one literal
    /// (`remoteConfig:rollback`), matched against the whole segment.
    struct Segment: Sendable, Hashable {
        let head: Part
        let verb: Part?
    }

    let description: String
    let segments: [Segment]
    /// The parameter that takes the rest of the path, if any.
    let rest: String?

    /// Parses `text`; a malformed pattern is a bug in a declaration and traps.
    init(_ text: String) {
        precondition(text.hasPrefix("/"), "a route's path starts with '/': \(text)")
        description = text
        // `/` alone has no segments.
        var pieces = text == "/" ? [] : text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let last = pieces.last, last.hasPrefix("{"), last.hasSuffix("...}") {
            rest = String(last.dropFirst().dropLast(4))
            pieces.removeLast()
        } else {
            rest = nil
        }
        segments = pieces.map(Self.segment)
    }

    /// The parameters in the order a match captures them (the rest last).
    var parameterNames: [String] {
        var names: [String] = []
        for segment in segments {
            for part in [segment.head, segment.verb] {
                if case .parameter(let name)? = part { names.append(name) }
            }
        }
        return names + (rest.map { [$0] } ?? [])
    }

    /// Whether the pattern has no parameter: it matches one path, its own text.
    var isLiteral: Bool {
        rest == nil && !description.contains("{")
    }

    /// The pattern's leading literal text, up to its first parameter.
    var literalPrefix: String {
        String(description.prefix { $0 != "{" })
    }

    /// The custom method its last segment names as a literal after a parameter (`fetch` for
    /// `{namespace}:fetch`), if any.
    var literalVerb: String? {
        guard rest == nil, let last = segments.last, case .parameter = last.head, case .literal(let verb)? = last.verb else { return nil }
        return verb
    }

    private static func segment(_ text: String) -> Segment {
        precondition(!text.isEmpty, "an empty segment in a route's path")
        guard let colon = text.firstIndex(of: ":") else { return Segment(head: part(text), verb: nil) }
        let head = part(String(text[..<colon])), verb = part(String(text[text.index(after: colon)...]))
        if case .literal = head, case .literal = verb { return Segment(head: .literal(text), verb: nil) }
        return Segment(head: head, verb: verb)
    }

    private static func part(_ text: String) -> Part {
        guard text.hasPrefix("{") else {
            precondition(!text.contains("{") && !text.contains("}") && !text.isEmpty, "a malformed segment: \(text)")
            return .literal(text)
        }
        precondition(text.hasSuffix("}") && text.count > 2 && !text.hasSuffix("...}"), "a malformed parameter: \(text)")
        return .parameter(String(text.dropFirst().dropLast()))
    }
}
