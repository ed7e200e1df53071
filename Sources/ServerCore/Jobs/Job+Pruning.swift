package import Foundation
package import Logging

extension Job {
    /// A job that removes what is kept `keepingDays` only (audit entries, the webhook delivery
    /// log): hourly, on each node's leader, since one removal serves every worker.
    /// - Parameter prune: removes what is older than the cutoff it is given.
    package static func pruning(_ name: String, keepingDays days: Int, logger: Logger,
                        _ prune: @escaping @Sendable (_ cutoff: Date) throws -> Void) -> Job {
        .every(3_600, name, scope: .leaderOnly) { now in
            do {
                try prune(now.addingTimeInterval(-Double(days) * 86_400))
            } catch {
                // The next hour tries again; nothing is lost by waiting.
                logger.warning("cannot remove old entries", metadata: ["job": "\(name)", "error": "\(error)"])
            }
        }
    }
}
