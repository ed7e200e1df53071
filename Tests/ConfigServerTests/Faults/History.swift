import CLinuxIO
import Foundation
import Synchronization

/// Everything a fault scenario's clients did and saw, and the faults injected, on one clock
/// (seconds since the history began): what `HistoryChecker` reads.
final class History: Sendable {
    enum Kind: String, Sendable {
        case publish, fetch
        /// A held stream was told of a version.
        case streamNotice
        /// The fetch an SDK makes when its stream tells it of a new version.
        case sdkFetch
        /// A poll of the node's `/readyz` (503: the node says it cannot read the store).
        case readiness
    }

    /// One call or notice.
    struct Operation: Sendable, CustomStringConvertible {
        var kind: Kind
        var node: Int
        var start: Double
        var end: Double
        /// nil: no answer (time-out, connection refused or cut).
        var status: Int?
        var outcomeUnknown = false
        var version: Int64?
        /// What a publish wrote or a fetch read (`k`; unique per publish).
        var value: String?

        var description: String {
            "\(kind) node \(node) [\(Self.format(start))–\(Self.format(end))] status \(status.map(String.init) ?? "none")"
                + "\(outcomeUnknown ? " (outcome unknown)" : "") version \(version.map(String.init) ?? "-") value \(value ?? "-")"
        }

        private static func format(_ seconds: Double) -> String { String(Int((seconds * 1000).rounded())) + " ms" }
    }

    /// A fault and when it was healed.
    struct Fault: Sendable {
        enum Effect: Sendable {
            /// The nodes cannot reach the database (a silent link, the database paused or cut):
            /// they must answer fetches from memory and refuse publishes, both within 2 s.
            case cutOff
            /// The nodes do not answer at all (killed).
            case down
            /// The nodes were killed while their links held every byte, and their connections
            /// to the database were left open (no FIN, no reset): the database still counts them.
            case vanished
            /// The nodes are connected, only slower (delay, loss, a worker restarting).
            case degraded
        }

        var name: String
        var effect: Effect
        var nodes: Set<Int>
        var start: Double
        var healed: Double
    }

    private let origin = rcs_monotonic_nanos()
    private let state = Mutex<(operations: [Operation], faults: [Fault])>(([], []))
    /// Broadcast on every operation recorded, for ``wait(until:for:)``.
    private let recorded = NSCondition()

    /// Seconds since the history began.
    var now: Double { Double(rcs_monotonic_nanos() - origin) / 1e9 }

    func record(_ operation: Operation) {
        state.withLock { $0.operations.append(operation) }
        recorded.lock()
        recorded.broadcast()
        recorded.unlock()
    }

    /// Waits until `condition` holds for the operations recorded, looking again as each one is
    /// recorded, or until `deadline` (history time) passed; whether it holds.
    @discardableResult
    func wait(until deadline: Double, for condition: ([Operation]) -> Bool) -> Bool {
        recorded.lock()
        defer { recorded.unlock() }
        while !condition(operations) {
            let remaining = deadline - now
            guard remaining > 0, recorded.wait(until: Date(timeIntervalSinceNow: remaining)) else { return condition(operations) }
        }
        return true
    }

    func record(_ fault: Fault) {
        state.withLock { $0.faults.append(fault) }
    }

    var operations: [Operation] { state.withLock { $0.operations } }
    var faults: [Fault] { state.withLock { $0.faults } }
}
