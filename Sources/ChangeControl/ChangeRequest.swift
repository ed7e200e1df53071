import ConfigCore
import ConfigStore
import Foundation
import ServerCore

/// A proposed change to a template, as the store keeps it (its JSON record) and the API shows
/// it (docs/change-control.md).
struct ChangeRequest: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        /// Publishes `template`.
        case publish
        /// Rolls back to `rollbackTo`.
        case rollback
        /// A canary step (`canaryStep`): starts one with `template` at `canaryPercent`, grows its
        /// share to `canaryPercent`, promotes or aborts it.
        case canary
    }

    enum CanaryStep: String, Codable, Sendable {
        case start, share, promote, abort
    }

    /// Who did something, with what they said.
    struct Step: Codable, Sendable, Equatable {
        var principal: String
        var name: String
        var comment: String?
        var time: Timestamp
    }

    var kind: Kind
    var template: RemoteConfigTemplate?
    var rollbackTo: Int64?
    var canaryStep: CanaryStep?
    var canaryPercent: Double?
    /// The version the proposal was based on (0 before the first publish; for a step of a running
    /// canary, the canary version): applying it expects the template still there.
    var baseVersion: Int64
    var description: String?
    var author: Step
    var approvals: [Step] = []
    var rejection: Step?
    var cancellation: Step?
    /// Who scheduled it, when it is scheduled.
    var scheduledBy: Step?
    /// Who applied it, and whether bypassing the approvals.
    var appliedBy: Step?
    var bypassedApproval = false
    /// The active version when applying found the template moved.
    var conflictVersion: Int64?
    /// Why a scheduled apply failed, other than a conflict.
    var failure: String?
    /// The environment and version a promotion copies (docs/environments.md).
    var promotedFrom: PromotionSource?

    func encoded() -> [UInt8] {
        Array(TemplateJSON.encode(self))
    }

    static func decode(_ stored: StoredChangeRequest) throws -> ChangeRequest {
        do {
            return try JSONDecoder().decode(ChangeRequest.self, from: Data(stored.record))
        } catch {
            throw APIError(500, "Change request \(stored.id) cannot be read by this server.")
        }
    }

    /// The status `stored` is in.
    static func status(of stored: StoredChangeRequest) throws -> ChangeStatus {
        guard let status = ChangeStatus(rawValue: stored.status) else {
            throw APIError(500, "Change request \(stored.id) is '\(stored.status)', a status this server does not know.")
        }
        return status
    }

    /// Whether `principal` approved it already.
    func isApproved(by principal: String) -> Bool {
        approvals.contains { $0.principal == principal }
    }
}

/// The statuses, defined once with the store (which completes only those a publish may).
typealias ChangeStatus = ChangeRequestStatus
