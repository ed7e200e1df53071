import Foundation
import Synchronization

/// A flag set from any thread to stop a transfer; curl polls it from its callbacks.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() { flag.store(true, ordering: .releasing) }
}

/// Receives the header and body callbacks of one transfer, and applies its body limits.
final class CurlTransferSink {
    private(set) var status = 0
    private var headers: [String: String] = [:]
    private let onHead: (Int, [String: String]) -> Void
    private let onData: (Data) -> Void
    private let readLimit: Int?
    private let keptLimit: Int?
    private var bytesRead = 0
    private var bytesKept = 0
    /// Whether the body went past the read limit, which stopped the transfer.
    private(set) var passedReadLimit = false
    let cancellation: CancellationFlag

    /// - Parameters:
    ///   - cancellation: polled from every callback.
    ///   - readLimit: body bytes read before the transfer stops (`nil`: no limit).
    ///   - keptLimit: body bytes handed to `onData` (`nil`: all).
    ///   - onHead: the final response's status and headers.
    ///   - onData: body bytes as they arrive.
    init(
        cancellation: CancellationFlag, readLimit: Int? = nil, keptLimit: Int? = nil,
        onHead: @escaping (Int, [String: String]) -> Void = { _, _ in }, onData: @escaping (Data) -> Void
    ) {
        self.cancellation = cancellation
        self.readLimit = readLimit
        self.keptLimit = keptLimit
        self.onHead = onHead
        self.onData = onData
    }

    /// One header line as curl delivers it: a status line, a field, or the blank line ending
    /// the header block. Interim 1xx responses and redirects each start with a status line.
    func receiveHeaderLine(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            let parts = trimmed.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = [:]
        } else if trimmed.isEmpty {
            if status >= 200 { onHead(status, headers) }
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = trimmed[..<colon].lowercased()
            headers[name] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// Keeps what fits of `bytes`; returns false to stop the transfer (cancelled, or past the
    /// read limit once these bytes are counted).
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if cancellation.isSet { return false }
        let kept = min(bytes.count, keptLimit.map { max(0, $0 - bytesKept) } ?? bytes.count)
        if kept > 0 {
            onData(Data(bytes.prefix(kept)))
            bytesKept += kept
        }
        bytesRead += bytes.count
        if let readLimit, bytesRead > readLimit {
            passedReadLimit = true
            return false
        }
        return true
    }
}
