import ConfigCore
import ConfigStore
import Foundation
import ServerCore
import Synchronization

/// How a template changes (docs/change-control.md): with `requiredApprovals` above zero, a
/// publish, rollback or canary step goes through an approved change request, and a direct one
/// is refused unless an admin bypasses in an emergency. The default is today's behaviour.
struct ChangePolicy: Codable, Sendable, Equatable {
    /// Distinct approvers a change request needs; 0: none, direct changes allowed.
    var requiredApprovals = 0
    /// Whether the author of a request may approve it (counting as one approver).
    var allowSelfApproval = false
    /// Whether editors may publish directly (when no approval is required).
    var editorsMayPublish = false

    static let maxApprovals = 10

    init() {}

    /// A field left out keeps its default.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requiredApprovals = try container.decodeIfPresent(Int.self, forKey: .requiredApprovals) ?? 0
        allowSelfApproval = try container.decodeIfPresent(Bool.self, forKey: .allowSelfApproval) ?? false
        editorsMayPublish = try container.decodeIfPresent(Bool.self, forKey: .editorsMayPublish) ?? false
    }

    /// The body of `PUT …/changePolicy`: a member left out keeps its default, but a body there
    /// must be (an empty one is more likely a mistake than a reset).
    init(body: [UInt8]) throws(APIError) {
        guard !body.isEmpty else {
            throw APIError.badRequest("A change policy is {\"requiredApprovals\": 0…\(Self.maxApprovals), "
                + "\"allowSelfApproval\": bool, \"editorsMayPublish\": bool}.")
        }
        let body = try ManagementBody(body, fields: ["requiredApprovals", "allowSelfApproval", "editorsMayPublish"])
        if let required = try body.integer("requiredApprovals") {
            guard (0...Int64(Self.maxApprovals)).contains(required) else {
                throw APIError.badRequest("'requiredApprovals' must be 0…\(Self.maxApprovals), got \(required).")
            }
            requiredApprovals = Int(required)
        }
        allowSelfApproval = try body.bool("allowSelfApproval") ?? false
        editorsMayPublish = try body.bool("editorsMayPublish") ?? false
    }

    var requiresApproval: Bool { requiredApprovals > 0 }
}

/// Every template's policy, in memory (read with the projects), so the check on each publish is
/// a lookup.
package final class ChangePolicies: ChangePolicyTable {
    private let policies = Mutex<[TemplateKey: ChangePolicy]>([:])

    package init() {}

    func policy(_ key: TemplateKey) -> ChangePolicy {
        policies.withLock { $0[key] } ?? ChangePolicy()
    }

    /// Replaces them with what the store holds; a record this build cannot read is the default.
    func replaceAll(_ stored: [StoredChangePolicy]) {
        let decoder = JSONDecoder()
        var read: [TemplateKey: ChangePolicy] = [:]
        for policy in stored {
            read[TemplateKey(project: policy.project, namespace: policy.namespace)] =
                (try? decoder.decode(ChangePolicy.self, from: Data(policy.record))) ?? ChangePolicy()
        }
        policies.withLock { $0 = read }
    }
}
