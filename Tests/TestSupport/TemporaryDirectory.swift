public import Foundation

/// A fresh, empty directory under the system's temporary directory, removed with everything in
/// it when this object goes away.
///
/// A suite holds one as a stored property (Swift Testing makes a suite instance per test, so
/// each test gets its own directory, removed after it); code that needs one for a single call
/// uses ``with(_:_:)``. Suites hold one rather than wrapping each test body in a closure:
/// Swift 6.3.1 can give a closure written inside `#require(throws:)` in a nested closure the
/// same symbol as a later closure of that outer closure, so the wrong code runs.
///
/// Where the code under test must create a directory itself (a server's data directory), pass
/// it a path inside this one, such as `temporary.url.appendingPathComponent("data")`: that
/// path does not exist yet.
public final class TemporaryDirectory: Sendable {
    /// The directory; it exists once `init` returns.
    public let url: URL

    /// The directory as a file-system path.
    public var path: String { url.path }

    /// Creates the directory.
    /// - Parameter prefix: the start of its name, which ends in a UUID; it says which tests
    ///   left a directory behind should a process be killed before the cleanup.
    public init(_ prefix: String = "rcs-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Nothing to report to: a test that is over cannot fail, and the system cleans its
        // temporary directory in the end.
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `body` with a fresh directory that is removed when `body` returns or throws.
    /// - Parameters:
    ///   - prefix: the start of the directory's name.
    ///   - body: what uses the directory.
    public static func with<Result>(_ prefix: String = "rcs-tests", _ body: (URL) throws -> Result) throws -> Result {
        let directory = try TemporaryDirectory(prefix)
        return try withExtendedLifetime(directory) { try body(directory.url) }
    }
}
