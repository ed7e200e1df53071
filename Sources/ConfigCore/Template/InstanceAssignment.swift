/// How app instances are assigned to rollouts, experiment variants and canary versions: stable
/// (the same instance always lands in the same place, on every worker and after restarts) and
/// uniform, so that `percent` of the instances are in.
///
/// Firebase's own assignment is not public, so these are ours (docs/compatibility.md,
/// "Rollouts and experiments"):
/// - **Bucket**: `PercentBucket.microPercentile(seed: id, randomizationId: appInstanceId)`,
///   SHA-256 of `id + "." + appInstanceId` read as the Admin SDKs read percent buckets (spec
///   §5.3), a number in `0 ..< 100_000_000` (micro-percent).
/// - **Inclusion**: an instance is in when its bucket is below `percent × 1_000_000`. Raising
///   the percent only adds instances: whoever was in stays in.
/// - **Variant**: a second, independent bucket on `experimentId + ".variant"` spreads exposed
///   instances evenly over the variants (bucket × count / 100_000_000), so raising the exposure
///   keeps every exposed instance on its variant.
public enum InstanceAssignment {
    /// The instance's bucket for `id` (a rollout, experiment or canary seed), `0 ..< 100_000_000`.
    public static func bucket(id: String, appInstanceId: String) -> UInt64 {
        PercentBucket.microPercentile(seed: id, randomizationId: appInstanceId)
    }

    /// `percent` (0–100) in micro-percent, the unit of buckets.
    public static func microPercent(_ percent: Double) -> UInt64 {
        guard percent > 0 else { return 0 }
        return min(UInt64((percent * 1_000_000).rounded()), PercentBucket.microPercentScale)
    }

    /// Whether the instance is among the `microPercent` of instances included for `id`.
    /// - Parameters:
    ///   - id: the rollout id, experiment id or canary seed.
    ///   - microPercent: the share, from `microPercent(_:)`.
    ///   - appInstanceId: the instance; an empty one is never included.
    public static func isIncluded(id: String, microPercent: UInt64, appInstanceId: String) -> Bool {
        !appInstanceId.isEmpty && microPercent > 0 && bucket(id: id, appInstanceId: appInstanceId) < microPercent
    }

    /// The variant (`0 ..< variantCount`) of an exposed instance of experiment `experimentId`.
    /// - Precondition: `variantCount > 0`.
    public static func variantIndex(experimentId: String, variantCount: Int, appInstanceId: String) -> Int {
        precondition(variantCount > 0, "an experiment without variants has no variant to pick")
        let bucket = bucket(id: experimentId + ".variant", appInstanceId: appInstanceId)
        // bucket < 10^8 and variantCount is small, so the product cannot overflow.
        return Int(bucket * UInt64(variantCount) / PercentBucket.microPercentScale)
    }
}
