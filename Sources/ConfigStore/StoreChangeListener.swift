import ConfigCore

/// A commit another process or node announced.
public enum StoreChange: Sendable, Hashable {
    /// A template's head or canary moved; `version` is the newest version it names.
    case template(TemplateKey, version: Int64)
    /// Projects or their client API keys changed.
    case projects
    /// Principals, memberships, tokens or change policies changed, or a session ended.
    case access

    /// Reads a notification payload: `project<TAB>namespace<TAB>version`, `projects` or `access`.
    public init?(payload: String) {
        switch payload {
        case "projects":
            self = .projects
            return
        case "access":
            self = .access
            return
        default:
            break
        }
        let parts = payload.split(separator: "\t", omittingEmptySubsequences: false)
        guard parts.count == 3, let namespace = TemplateNamespace(rawValue: String(parts[1])),
              let version = Int64(parts[2]), !parts[0].isEmpty
        else { return nil }
        self = .template(TemplateKey(project: String(parts[0]), namespace: namespace), version: version)
    }

    /// The payload `init(payload:)` reads.
    public var payload: String {
        switch self {
        case .template(let key, let version): "\(key.project)\t\(key.namespace.rawValue)\t\(version)"
        case .projects: "projects"
        case .access: "access"
        }
    }
}

/// A connection that is told of every commit made through any node (PostgreSQL's LISTEN),
/// driven by the caller's event loop.
///
/// Confinement: `connect()` blocks and runs off the loop; from then on, until `close()`, one
/// thread at a time (the loop) calls the other methods, none of which blocks.
public protocol StoreChangeListener: AnyObject, Sendable {
    /// Connects and subscribes; the subscription is committed when it returns, so a commit made
    /// after it is announced (read the heads after this to catch what came before).
    /// - Returns: the socket to watch for readability.
    func connect() throws(StoreError) -> Int32

    /// Takes in what the socket has, without blocking, and returns the changes announced (maybe
    /// none: a heartbeat's answer or part of a message).
    /// - Throws: `StoreError.unavailable` when the connection is lost: `close()`, then connect again.
    func receive() throws(StoreError) -> [StoreChange]

    /// Sends a query the server must answer, without blocking; `receive` takes the answer.
    func sendHeartbeat() throws(StoreError)

    /// The newest revision received: the changes `receive` returned so far (and what was read
    /// after connecting) cover it.
    var receivedRevision: Int64 { get }

    /// Records, without blocking, that this node has applied every change up to `revision` (one
    /// `receivedRevision` gave): a writer waits for the nodes' acknowledgements before it
    /// returns, so that no node answers with what the write replaced. Changes received since
    /// are not acknowledged by it.
    func acknowledge(through revision: Int64) throws(StoreError)

    /// Whether a heartbeat is still waiting for its answer.
    var isAwaitingHeartbeat: Bool { get }

    /// Drops the connection (idempotent). Stop watching its socket first.
    func close()
}


/// How a node's listener shows it is alive: a heartbeat every `heartbeatInterval`, whatever
/// the traffic, which the store records by its own clock. A writer waits only for listeners
/// heard from within `window` (three beats, so that one late beat is not taken for death):
/// a node whose host vanished holds up writes for at most that long.
public enum ListenerLiveness {
    public static let heartbeatInterval: Duration = .seconds(2)
    public static let window: Duration = heartbeatInterval * 3
}

extension StoreChangeListener {
    /// Acknowledges every change received so far.
    public func acknowledge() throws(StoreError) {
        try acknowledge(through: receivedRevision)
    }
}
