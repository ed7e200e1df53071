/// Up to six values held inline, in order: what a route match keeps per request without an
/// allocation (no route has more than six parameters: an environment's change request's step
/// has five).
struct InlineSix<Element> {
    static var capacity: Int { 6 }
    private(set) var count = 0
    private var values: (Element, Element, Element, Element, Element, Element)

    /// - Parameter empty: what fills the places not taken yet.
    init(empty: Element) {
        values = (empty, empty, empty, empty, empty, empty)
    }

    // Inlined: a call copied all the values (each a retain) to read one.
    @inline(__always)
    mutating func append(_ value: Element) {
        precondition(count < Self.capacity, "more than six values")
        switch count {
        case 0: values.0 = value
        case 1: values.1 = value
        case 2: values.2 = value
        case 3: values.3 = value
        case 4: values.4 = value
        default: values.5 = value
        }
        count += 1
    }

    /// Forgets the values after the first `count` (a match backtracking).
    mutating func removeLast(toCount count: Int) {
        self.count = min(count, self.count)
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        precondition(index < count)
        switch index {
        case 0: return values.0
        case 1: return values.1
        case 2: return values.2
        case 3: return values.3
        case 4: return values.4
        default: return values.5
        }
    }
}

extension InlineSix: Sendable where Element: Sendable {}
