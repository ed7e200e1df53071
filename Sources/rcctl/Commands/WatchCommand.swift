import ArgumentParser
import ConfigClient
import Foundation

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print real-time invalidations as they arrive (Ctrl-C to stop).",
        discussion: "Reconnects when the server ends the stream, after retryIntervalSeconds if it sent one."
    )

    @Option(help: "Client API key (env RCS_API_KEY).")
    var apiKey: String?

    @Option(help: "GMP app id to watch as.")
    var appId = "1:000000000000:web:0000000000000000"

    @Option(help: "Version already known; 0 makes the server announce the current one.")
    var since: Int64 = 0

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let client = global.adminClient()
        let key = apiKey ?? ProcessInfo.processInfo.environment["RCS_API_KEY"] ?? ""
        var lastKnown = since
        while true {
            let request = client.invalidationStreamRequest(apiKey: key, appId: appId, appInstanceId: "rcctl-watch", lastKnownVersion: lastKnown)
            let outcome = try await watchOnce(request, lastKnown: &lastKnown)
            Console.error("stream ended; reconnecting in \(outcome) s")
            try await Task.sleep(for: .seconds(outcome))
        }
    }

    /// Follows one stream to its end.
    /// - Returns: seconds to wait before reconnecting.
    private func watchOnce(_ request: HTTPRequest, lastKnown: inout Int64) async throws(CLIError) -> Int {
        let (events, continuation) = AsyncStream.makeStream(of: StreamEvent.self)
        let handle = CurlTransport().stream(request) { event in
            continuation.yield(event)
            if case .end = event { continuation.finish() }
        }
        defer { handle.cancel() }
        var status = 0
        var refusal = HTTPResponse(status: 0)
        var parser = InvalidationStreamParser()
        var retry = 1
        for await event in events {
            switch event {
            case .head(let code, let headers):
                status = code
                refusal = HTTPResponse(status: code, headers: headers)
            case .data(let data) where status != 200:
                refusal.body.append(data)
            case .data(let data):
                let messages: [InvalidationMessage]
                do { messages = try parser.append(data) } catch { throw CLIError(message: error.description, exitCode: CLIError.serverExitCode) }
                for message in messages {
                    try show(message, lastKnown: &lastKnown)
                    if let seconds = message.retryIntervalSeconds { retry = max(1, seconds) }
                }
            case .end(let error):
                if status != 200, status != 0 {
                    throw CLIError(.server(ServerError(response: refusal)))
                }
                if let error, status == 0 { throw CLIError(.transport(error)) }
            }
        }
        return retry
    }

    private func show(_ message: InvalidationMessage, lastKnown: inout Int64) throws(CLIError) {
        if global.json {
            var fields: [String] = []
            if let version = message.latestTemplateVersionNumber { fields.append("\"latestTemplateVersionNumber\":\"\(version)\"") }
            if message.featureDisabled { fields.append("\"featureDisabled\":true") }
            if let seconds = message.retryIntervalSeconds { fields.append("\"retryIntervalSeconds\":\(seconds)") }
            Console.out("{\(fields.joined(separator: ","))}")
        } else {
            if let version = message.latestTemplateVersionNumber { Console.out("latest version \(version)") }
            if let seconds = message.retryIntervalSeconds { Console.out("server asks to reconnect after \(seconds) s") }
        }
        if let version = message.latestTemplateVersionNumber { lastKnown = max(lastKnown, version) }
        if message.featureDisabled {
            throw CLIError(message: "the server disabled real-time updates for this client", exitCode: CLIError.serverExitCode)
        }
    }
}
