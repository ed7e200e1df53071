import ConfigCore
package import ConfigStore

/// A running canary as a worker serves it: the canary version, compiled, and who gets it.
/// A class: every fetch of the template reads it, and a reference is one retain to copy.
package final class CanaryServing: Sendable {
    package let stored: StoredCanary
    package let template: ActiveTemplate

    init(stored: StoredCanary, template: ActiveTemplate) {
        self.stored = stored
        self.template = template
    }

    package var version: Int64 { template.versionNumber }
    var microPercent: UInt64 { UInt64(stored.microPercent) }

    /// Whether `instance` is in the canary's share (its bucket for the canary's seed is below
    /// the share; an empty instance id never is).
    func includes(_ instance: String) -> Bool {
        InstanceAssignment.isIncluded(id: stored.seed, microPercent: microPercent, appInstanceId: instance)
    }

    /// Whether an instance whose bucket for the seed is `bucket` is in the share.
    func includes(bucket: UInt64) -> Bool {
        bucket < microPercent
    }
}

/// The version a held stream of one instance should know, and whether one it knows will do.
struct StreamTarget: Sendable, Equatable {
    /// The canary version for an instance in the canary's share, else the active version
    /// (0 before the first publish).
    let version: Int64
    /// A version whose content the active version repeats (the canary version it promoted, the
    /// stable version an abort copied back): a stream that knows it is told nothing, so a
    /// promotion tells only the instances outside the canary and an abort only those inside.
    let equivalent: Int64?

    /// Whether a stream that knows `lastKnown` needs no message.
    func isCurrent(_ lastKnown: Int64) -> Bool {
        lastKnown >= version || lastKnown == equivalent
    }
}
