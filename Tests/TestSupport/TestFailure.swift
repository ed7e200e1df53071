/// A test's own failure, with what it saw: a wait that ran out, an answer not as expected.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
