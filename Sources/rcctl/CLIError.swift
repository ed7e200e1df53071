import ConfigClient
import Foundation

/// A failure reported to the user, with its exit code.
struct CLIError: Error {
    static let serverExitCode: Int32 = 1
    static let usageExitCode: Int32 = 2
    static let connectionExitCode: Int32 = 3

    var message: String
    var exitCode: Int32

    /// A bad argument or input file.
    static func usage(_ message: String) -> CLIError {
        CLIError(message: message, exitCode: usageExitCode)
    }

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Maps client errors: server answers exit 1 with the server's message, unreachable
    /// servers exit 3.
    init(_ error: ConfigClientError) {
        switch error {
        case .transport(let transport):
            self.init(message: "cannot reach the server: \(transport.message)", exitCode: Self.connectionExitCode)
        case .server(let server):
            self.init(message: "the server answered \(server)", exitCode: Self.serverExitCode)
        case .invalidResponse(let detail):
            self.init(message: "unexpected answer from the server: \(detail)", exitCode: Self.serverExitCode)
        }
    }
}

/// Runs `body`, turning library errors into ``CLIError``.
func checked<T>(_ body: () async throws(ConfigClientError) -> T) async throws(CLIError) -> T {
    do {
        return try await body()
    } catch {
        throw CLIError(error)
    }
}
