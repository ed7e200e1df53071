/// Tells the client API's requests (fetches, streams, OFREP's evaluations) from the others by a
/// request's first bytes, before it is parsed (`Application.mayWait`): its line names a client
/// route's custom method (`:fetch`), or its target starts with a client route's leading
/// literal (`/ofrep/v1/sse`). Derived from the declarations that say they are client requests.
package struct ClientRequestLine: Sendable {
    /// `:fetch`, `:streamFetchInvalidations`.
    private let verbs: [[UInt8]]
    /// ` /ofrep/v1/evaluate/flags`, with the space that ends the method.
    private let targets: [[UInt8]]

    init(_ declarations: [RouteDeclaration]) {
        var verbs: [[UInt8]] = [], targets: [[UInt8]] = []
        for pattern in declarations.map(\.path) {
            if let verb = pattern.literalVerb {
                verbs.append(Array((":" + verb).utf8))
            } else {
                targets.append(Array((" " + pattern.literalPrefix).utf8))
            }
        }
        // A prefix of another covers it.
        self.targets = targets.filter { target in !targets.contains { $0 != target && target.starts(with: $0) } }
        self.verbs = verbs
    }

    /// Whether `start`, the first bytes of a request, is a client request; false when its
    /// first line is cut short.
    package func matches(_ start: UnsafeRawBufferPointer) -> Bool {
        let line = start.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard line.count < start.count else { return false }
        let named = line.indices.contains { index in
            line[index] == UInt8(ascii: ":") && verbs.contains { line[index...].starts(with: $0) }
        }
        guard !named, let space = line.firstIndex(of: UInt8(ascii: " ")) else { return named }
        return targets.contains { line[space...].starts(with: $0) }
    }
}
