import Glibc

/// The declared paths compiled into a trie over the bytes of a path's segments: a request's
/// path is matched by one walk down it, segment by segment, with no string made until it
/// matched. Built once per worker; this runs for every request, the fetch's included.
///
/// A path's segments are its bytes between slashes, whatever they hold, and a pattern's
/// literals are compared with them byte for byte.
///
/// `@unchecked Sendable`: its memory is written once, in `init`, and only read afterwards; it
/// is held in buffers of its own rather than arrays, so that a match retains nothing.
final class RouteTrie: @unchecked Sendable {
    /// How an edge matches one segment. The order is the order a node tries its edges in:
    /// a literal before a custom method, before a parameter, so that `{id}:rotateSecret`
    /// wins over `{id}:{method}`, and both over `{id}` (which takes colons too).
    private enum Kind: UInt8, Comparable {
        /// The whole segment is the literal (`apiKeys`, `remoteConfig:rollback`).
        case literal
        /// `literal:{verb}`: the segment starts with the literal and a colon; the rest is captured.
        case literalThenParameter
        /// `{head}:literal`: the segment's text after its first colon is the literal; what
        /// precedes it (not empty) is captured.
        case parameterThenLiteral
        /// `{head}:{verb}`: both sides of the first colon are captured, the head not empty.
        case parameterThenParameter
        /// `{name}`: the whole segment (not empty), colons and all.
        case parameter

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private struct Edge {
        let kind: Kind
        /// The literal's bytes in `literals`.
        let literalStart: Int
        let literalCount: Int
        let child: Int
    }

    private struct Node {
        /// Its edges in `edges`, in the order they are tried.
        var edges: Range<Int> = 0..<0
        /// The path that ends here, or -1.
        var path = -1
        /// The node a rest parameter (`{file...}`) leads to, or -1.
        var rest = -1
    }

    private let nodes: UnsafeMutableBufferPointer<Node>
    private let edges: UnsafeMutableBufferPointer<Edge>
    private let literals: UnsafeMutableBufferPointer<UInt8>
    /// The paths without parameters (`/healthz`, `/ofrep/v1/evaluate/flags`), by length: the
    /// entries of `exact` a path of each length may be. Such a path is matched by one
    /// comparison, before any walk (which would find it first too: literals are tried first).
    private let exactByLength: UnsafeMutableBufferPointer<Range<Int>>
    private let exact: UnsafeMutableBufferPointer<Exact>

    private struct Exact {
        /// The path's bytes in `literals`.
        let literalStart: Int
        let path: Int
    }
    /// How many distinct paths the patterns make (those that differ only in their parameters'
    /// names are one path).
    let pathCount: Int
    /// For each pattern compiled, the index of its path.
    let patternPaths: [Int]

    /// Compiles `patterns`; `patternPaths[i]` is the path `patterns[i]` matches (equal for
    /// patterns that differ only in their parameters' names).
    init(_ patterns: [RoutePattern]) {
        let built = Builder(patterns)
        var literals: [UInt8] = []
        var edges: [Edge] = []
        let nodes = built.nodes.map { node in
            let first = edges.count
            for edge in node.edges.sorted(by: { $0.kind < $1.kind }) {
                edges.append(Edge(kind: edge.kind, literalStart: literals.count, literalCount: edge.literal.count, child: edge.child))
                literals.append(contentsOf: edge.literal)
            }
            return Node(edges: first..<edges.count, path: node.path, rest: node.rest)
        }
        let exactPaths = zip(patterns, built.paths).filter { $0.0.isLiteral }
        let longest = exactPaths.map(\.0.description.utf8.count).max() ?? 0
        var exact: [Exact] = []
        exactByLength = Self.copy((0...longest).map { length in
            let first = exact.count
            for (pattern, path) in exactPaths where pattern.description.utf8.count == length
                && !exact.contains(where: { $0.path == path }) {
                exact.append(Exact(literalStart: literals.count, path: path))
                literals.append(contentsOf: pattern.description.utf8)
            }
            return first..<exact.count
        })
        self.exact = Self.copy(exact)
        self.nodes = Self.copy(nodes)
        self.edges = Self.copy(edges)
        // Never empty: a base address to compare against even without literals.
        self.literals = Self.copy(literals.isEmpty ? [0] : literals)
        pathCount = built.pathCount
        patternPaths = built.paths
    }

    deinit {
        nodes.deallocate()
        edges.deallocate()
        literals.deallocate()
        exactByLength.deallocate()
        exact.deallocate()
    }

    private static func copy<Element>(_ elements: [Element]) -> UnsafeMutableBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: elements.count)
        _ = buffer.initialize(from: elements)
        return buffer
    }

    /// The path `bytes` (a percent-decoded request path) matches, with the byte ranges of its
    /// parameters in `captures` (in the order of `RoutePattern.parameterNames`); nil for none.
    func match(_ bytes: UnsafeBufferPointer<UInt8>, captures: inout RouteCaptures) -> Int? {
        guard bytes.count > 0, bytes[0] == UInt8(ascii: "/") else { return nil }
        if bytes.count < exactByLength.count {
            for entry in exact[exactByLength[bytes.count]]
            where memcmp(bytes.baseAddress!, literals.baseAddress! + entry.literalStart, bytes.count) == 0 {
                return entry.path
            }
        }
        return Walk(nodes: UnsafeBufferPointer(nodes), edges: UnsafeBufferPointer(edges), literals: UnsafeBufferPointer(literals),
                    path: bytes).match(0, from: 1, &captures)
    }

    /// One match: the trie and the path, borrowed for the walk.
    private struct Walk {
        let nodes: UnsafeBufferPointer<Node>
        let edges: UnsafeBufferPointer<Edge>
        let literals: UnsafeBufferPointer<UInt8>
        let path: UnsafeBufferPointer<UInt8>

        /// Matches the path from `start` (just after a slash) below `node`, backtracking to the
        /// next edge when one leads nowhere.
        func match(_ node: Int, from start: Int, _ captures: inout RouteCaptures) -> Int? {
            let end = path.count
            let slash = index(of: UInt8(ascii: "/"), from: start, to: end)
            // Found once, and only for an edge that needs it.
            var colon: Int?
            for edgeIndex in nodes[node].edges {
                let edge = edges[edgeIndex]
                let mark = captures.count
                switch edge.kind {
                case .literal:
                    guard slash - start == edge.literalCount, equals(edge, at: start) else { continue }
                case .literalThenParameter:
                    colon = colon ?? index(of: UInt8(ascii: ":"), from: start, to: slash)
                    guard let colon, colon < slash, colon - start == edge.literalCount, equals(edge, at: start) else { continue }
                    captures.append(colon + 1..<slash)
                case .parameterThenLiteral:
                    colon = colon ?? index(of: UInt8(ascii: ":"), from: start, to: slash)
                    guard let colon, colon < slash, colon > start, slash - colon - 1 == edge.literalCount,
                          equals(edge, at: colon + 1) else { continue }
                    captures.append(start..<colon)
                case .parameterThenParameter:
                    colon = colon ?? index(of: UInt8(ascii: ":"), from: start, to: slash)
                    guard let colon, colon < slash, colon > start else { continue }
                    captures.append(start..<colon)
                    captures.append(colon + 1..<slash)
                case .parameter:
                    guard slash > start else { continue }
                    captures.append(start..<slash)
                }
                let found = slash == end ? path(of: edge.child) : match(edge.child, from: slash + 1, &captures)
                if let found { return found }
                captures.removeLast(toCount: mark)
            }
            let rest = nodes[node].rest
            guard rest >= 0 else { return nil }
            captures.append(start..<end)
            return path(of: rest)
        }

        private func path(of node: Int) -> Int? {
            let path = nodes[node].path
            return path >= 0 ? path : nil
        }

        private func equals(_ edge: Edge, at start: Int) -> Bool {
            memcmp(path.baseAddress! + start, literals.baseAddress! + edge.literalStart, edge.literalCount) == 0
        }

        /// The index of the first `byte` in `start..<end`, or `end` (memchr(3): a path is
        /// scanned for each slash).
        private func index(of byte: UInt8, from start: Int, to end: Int) -> Int {
            guard start < end, let found = memchr(path.baseAddress! + start, Int32(byte), end - start) else { return end }
            return UnsafeRawPointer(found) - UnsafeRawPointer(path.baseAddress!)
        }
    }

    /// The trie as it is built: nodes that own their edges.
    private struct Builder {
        struct Edge {
            let kind: Kind
            let literal: [UInt8]
            let child: Int
        }

        struct Node {
            var edges: [Edge] = []
            var path = -1
            var rest = -1
        }

        var nodes = [Node()]
        var pathCount = 0
        var paths: [Int] = []

        init(_ patterns: [RoutePattern]) {
            for pattern in patterns {
                precondition(pattern.parameterNames.count <= RouteCaptures.capacity,
                             "\(pattern) has more parameters than a match holds")
                var node = 0
                for segment in pattern.segments {
                    let (kind, literal) = Self.edge(segment)
                    node = child(of: node, kind, literal)
                }
                if pattern.rest != nil {
                    if nodes[node].rest < 0 {
                        nodes.append(Node())
                        nodes[node].rest = nodes.count - 1
                    }
                    node = nodes[node].rest
                }
                if nodes[node].path < 0 {
                    nodes[node].path = pathCount
                    pathCount += 1
                }
                paths.append(nodes[node].path)
            }
        }

        private mutating func child(of node: Int, _ kind: Kind, _ literal: [UInt8]) -> Int {
            if let edge = nodes[node].edges.first(where: { $0.kind == kind && $0.literal == literal }) { return edge.child }
            nodes.append(Node())
            nodes[node].edges.append(Edge(kind: kind, literal: literal, child: nodes.count - 1))
            return nodes.count - 1
        }

        private static func edge(_ segment: RoutePattern.Segment) -> (Kind, [UInt8]) {
            switch (segment.head, segment.verb) {
            case (.literal(let text), nil): (.literal, Array(text.utf8))
            case (.parameter, nil): (.parameter, [])
            case (.literal(let head), .parameter?): (.literalThenParameter, Array(head.utf8))
            case (.parameter, .literal(let verb)?): (.parameterThenLiteral, Array(verb.utf8))
            case (.parameter, .parameter?): (.parameterThenParameter, [])
            case (.literal, .literal?): preconditionFailure("RoutePattern joins two literals into one")
            }
        }
    }
}

/// The byte ranges of the parameters a match found, held inline: a match makes no allocation.
typealias RouteCaptures = InlineSix<Range<Int>>

extension RouteCaptures {
    init() {
        self.init(empty: 0..<0)
    }
}
