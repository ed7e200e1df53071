import ConfigCore
package import ConfigStore
import Foundation
import HTTP1
import ServerCore

/// `GET /v1/auditLog`: the audit log, newest first, filtered (`actor`, `action`, `project`,
/// `startTime`, `endTime`) and paged (`pageSize`, `pageToken`), as JSON, JSON lines
/// (`format=jsonl`) or CSV (`format=csv`); the next page's token is also in
/// `X-Next-Page-Token`.
package struct AuditEndpoint: Sendable {
    let store: any AuditLog

    package init(store: any AuditLog) {
        self.store = store
    }

    func answer(_ exchange: Exchange, project: StoredProject?) throws {
        let uri = exchange.uri
        let query = AuditQuery(
            actorID: uri.parameter("actor"), action: uri.parameter("action"), project: project?.id,
            startTime: try uri.time("startTime"), endTime: try uri.time("endTime"), pageSize: try uri.pageSize(in: 1...1000),
            pageToken: uri.parameter("pageToken"))
        let format = uri.parameter("format") ?? "json"
        guard ["json", "jsonl", "csv"].contains(format) else {
            throw APIError.badRequest("format must be json, jsonl or csv, got '\(format)'.")
        }
        exchange.answerFromStore { [store] in
            let (entries, next) = try store.entries(query)
            let shown = entries.map(Self.json)
            var headers = HTTPHeaders()
            if let next { headers.add(name: "X-Next-Page-Token", value: next) }
            switch format {
            case "jsonl":
                headers.add(name: "Content-Type", value: "application/x-ndjson; charset=utf-8")
                return HTTPResponse(status: 200, headers: headers, body: Array(shown.map { $0 + [UInt8(ascii: "\n")] }.joined()))
            case "csv":
                headers.add(name: "Content-Type", value: "text/csv; charset=utf-8")
                return HTTPResponse(status: 200, headers: headers, body: Array(Self.csv(entries).utf8))
            default:
                var body = Array("{\"entries\":[".utf8) + Array(shown.joined(separator: [UInt8(ascii: ",")])) + [UInt8(ascii: "]")]
                if let next { body += Array(",\"nextPageToken\":\"\(next)\"".utf8) }
                return .json(body + [UInt8(ascii: "}")], headers: headers)
            }
        }
    }

    /// An entry's JSON object; the diff (stored as the `:diff` endpoint's JSON) goes in as it is.
    private static func json(_ entry: AuditEntry) -> [UInt8] {
        var object = Array(TemplateJSON.encode(EntryJSON(entry)))
        guard let diff = entry.diff, object.last == UInt8(ascii: "}") else { return object }
        object.removeLast()
        return object + Array(",\"diff\":".utf8) + diff + [UInt8(ascii: "}")]
    }

    /// An entry as the API shows it, but its diff.
    private struct EntryJSON: Encodable {
        struct Actor: Encodable {
            let id: String
            let name: String
        }

        let id: String
        let time: Timestamp
        let actor: Actor
        let origin: String
        let requestId: String
        let clientAddress: String
        let action: String
        let project: String?
        /// The environment of the template the call named (production's for the Firebase paths).
        let environment: String?
        /// The template's kind, as Firebase names it.
        let namespace: String?
        let target: String?
        let versionNumber: String?
        let outcome: String

        init(_ entry: AuditEntry) {
            id = "\(entry.id)"
            time = Timestamp(entry.time)
            actor = Actor(id: entry.actorID, name: entry.actorName)
            origin = entry.origin
            requestId = entry.requestID
            clientAddress = entry.clientAddress
            action = entry.action
            project = entry.project
            (environment, namespace) = AuditEndpoint.split(entry.namespace)
            target = entry.target
            versionNumber = entry.versionNumber.map { "\($0)" }
            outcome = entry.outcome
        }
    }

    /// A stored namespace as its environment and kind; one this release cannot read as stored.
    static func split(_ stored: String?) -> (environment: String?, kind: String?) {
        guard let stored else { return (nil, nil) }
        guard let namespace = TemplateNamespace(rawValue: stored) else { return (nil, stored) }
        return (namespace.environment.rawValue, namespace.kind.rawValue)
    }

    /// RFC 4180: a header line, then one line per entry (the diff is not in the CSV).
    private static func csv(_ entries: [AuditEntry]) -> String {
        func field(_ text: String?) -> String {
            guard let text else { return "" }
            guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
            return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var lines = ["id,time,actorId,actorName,origin,requestId,clientAddress,action,project,environment,namespace,target,versionNumber,"
            + "outcome"]
        for entry in entries {
            let (environment, namespace) = split(entry.namespace)
            lines.append([
                "\(entry.id)", Timestamp(entry.time).rfc3339, entry.actorID, entry.actorName, entry.origin, entry.requestID,
                entry.clientAddress, entry.action, entry.project, environment, namespace, entry.target,
                entry.versionNumber.map { "\($0)" }, entry.outcome,
            ].map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
