import ConfigCore
import Foundation
import EventLoop
import Glibc
import Logging
import ServerCore

/// One JSON object per line on stderr, for log shippers: `time`, `level`, `label`, `message`,
/// `source` and the metadata as string fields.
struct JSONLogHandler: LogHandler {
    let label: String
    let clock: any WallClock
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("time", Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(clock.now)),
            ("level", event.level.rawValue), ("label", label), ("message", "\(event.message)"), ("source", event.source),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) { fields.append((key, "\(value)")) }
        var line = "{" + fields.map { "\(Self.quoted($0.0)):\(Self.quoted($0.1))" }.joined(separator: ",") + "}\n"
        // One write(2) per line: lines from several workers sharing stderr do not interleave.
        line.withUTF8 { bytes in _ = Glibc.write(2, bytes.baseAddress, bytes.count) }
    }

    static func quoted(_ text: String) -> String {
        var out = ""
        ErrorBody.appendJSONString(text, to: &out)
        return out
    }
}
