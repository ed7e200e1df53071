package import ConfigCore
package import ConfigStore
package import Foundation

/// The published version of one template, ready to serve: parsed, compiled, rendered once.
package final class ActiveTemplate: Sendable {
    package let key: TemplateKey
    let projectNumber: String
    package let versionNumber: Int64
    package let compiled: CompiledTemplate
    /// The template with its `version` block, as GET returns it.
    package let rendered: [UInt8]
    package let etag: String
    /// Published as a canary: served to a share of the instances only.
    let isCanary: Bool
    /// The version whose content this one repeats for held streams: the canary version a
    /// promotion copied, the stable version an abort copied back (see `StreamTarget`).
    let equivalent: Int64?
    /// Fetch answers by condition-outcome vector: clients that satisfy the same conditions and
    /// share their rollouts and experiment variants (which are bits of the outcomes) get the
    /// same bytes, so a cache hit skips resolution and encoding. Each answer served is counted
    /// there, for usage (docs/insights.md).
    let fetchAnswers = CountingCache<ConditionOutcomes, FetchAnswer>(capacity: 4096)
    /// OFREP evaluations by condition-outcome vector, for the same reason; bulk evaluations
    /// are counted there.
    let ofrepAnswers = CountingCache<ConditionOutcomes, OFREPAnswer>(capacity: 4096)
    /// What usage counts besides the answers: clients by app version and platform, single flags.
    let usage: UsageTally
    /// What each key served clients of an outcome vector, as usage counts it (`takeUsage`).
    let usesByOutcomes = ResettingCache<ConditionOutcomes, [ParameterUse]>(capacity: 4096)
    /// What OFREP's encoding reads of the template besides an evaluation.
    package let ofrepShape: OFREPAnswer.Shape
    /// Outcomes of the stable conditions by the client inputs they read (app version,
    /// country...): few distinct values, so most fetches evaluate only their volatile
    /// conditions (percent rules, time).
    private let stableOutcomes = ResettingCache<StableInputs, ConditionOutcomes>(capacity: 4096)

    /// - Parameter compiled: `stored`'s template compiled before it was stored (a publish
    ///   validates it so), or nil to decode and compile the stored bytes.
    package init(stored: StoredVersion, projectNumber: String, compiled: CompiledTemplate? = nil) throws(TemplateValidationError) {
        key = TemplateKey(project: stored.project, namespace: stored.namespace)
        self.projectNumber = projectNumber
        versionNumber = stored.versionNumber
        usage = UsageTally(version: stored.versionNumber)
        if let compiled {
            self.compiled = compiled.withVersion(TemplateVersion(stored))
        } else {
            var template = try RemoteConfigTemplate.decode(json: Data(stored.templateJSON))
            template.version = TemplateVersion(stored)
            self.compiled = try CompiledTemplate(template, namespace: stored.namespace)
        }
        rendered = Array(TemplateJSON.encode(self.compiled.template))
        ofrepShape = OFREPAnswer.Shape(self.compiled)
        etag = TemplateETag(projectNumber: projectNumber, versionNumber: stored.versionNumber).description
        isCanary = stored.canaryAction == CanaryAction.canary
        equivalent = switch stored.canaryAction {
        case CanaryAction.promotion?: stored.canarySource
        case CanaryAction.abort?: stored.rollbackSource
        default: nil
        }
    }

    package var template: RemoteConfigTemplate { compiled.template }

    /// Every condition's outcome for one client.
    package func conditionOutcomes(for context: EvaluationContext) -> ConditionOutcomes {
        guard compiled.hasStableConditions else { return compiled.conditionOutcomes(for: context) }
        let inputs = compiled.stableInputs(of: context)
        guard inputs.isCacheable else { return compiled.conditionOutcomes(for: context) }
        let stable = stableOutcomes.value(for: inputs) { compiled.stableOutcomes(for: context) }
        return compiled.conditionOutcomes(for: context, stable: stable.value)
    }

    /// The answer for `outcomes`, computed once, counted as served to a client of `context`.
    func fetchAnswer(for outcomes: ConditionOutcomes, client context: EvaluationContext, metrics: ServerMetrics) -> FetchAnswer {
        let answer = fetchAnswers.value(for: outcomes) {
            FetchAnswer(config: compiled.served(for: outcomes), templateVersion: versionNumber,
                        startTime: compiled.template.version?.updateTime, projectNumber: projectNumber, namespace: key.namespace)
        }
        if answer.hit { metrics.recordAnswerCacheHit() }
        usage.recordAnswer(appVersion: context.appVersion, platform: context.platform, at: context.now)
        return answer.value
    }

    /// The OFREP evaluation for `outcomes`, computed once. Counted as served to a client of
    /// `context`: every flag, or only `flag` (when the template has it) for a single evaluation.
    package func ofrepAnswer(for outcomes: ConditionOutcomes, client context: EvaluationContext, flag: String?,
                             metrics: ServerMetrics) -> OFREPAnswer {
        let answer = ofrepAnswers.value(for: outcomes, counting: flag == nil) {
            OFREPAnswer(compiled: compiled, shape: ofrepShape, outcomes: outcomes, templateVersion: versionNumber)
        }
        if answer.hit { metrics.recordAnswerCacheHit() }
        if let flag {
            if answer.value.items[flag] != nil { usage.recordFlag(flag, outcomes: outcomes, for: context) }
        } else {
            usage.recordAnswer(appVersion: context.appVersion, platform: context.platform, at: context.now)
        }
        return answer.value
    }

    /// Counts the OFREP bulk evaluation for `outcomes` served again without a lookup (a repeated
    /// poll's 304), to a client of `appVersion` and `platform`.
    package func countRepeatedAnswer(for outcomes: ConditionOutcomes, appVersion: String?, platform: String?, at time: Date) {
        ofrepAnswers.count(outcomes)
        usage.recordAnswer(appVersion: appVersion, platform: platform, at: time)
    }
}

extension TemplateVersion {
    /// The `version` block of a stored version (spec §2.2). The versions that end a canary
    /// show it in `updateType` (`CANARY_PROMOTION`, `CANARY_ABORT`) and `canarySource`.
    package init(_ stored: StoredVersion) {
        self.init(WebhookEvent.Update(stored))
    }

    /// The `version` block of what a version records (a webhook event keeps that).
    package init(_ update: WebhookEvent.Update) {
        let canaryAction = update.canaryAction.flatMap(CanaryAction.init(rawValue:))
        let updateType: UpdateType? = switch canaryAction {
        case CanaryAction.promotion?: .canaryPromotion
        case CanaryAction.abort?: .canaryAbort
        default: update.updateType.map(UpdateType.init(rawValue:))
        }
        self.init(
            versionNumber: update.versionNumber,
            updateTime: Timestamp(Date(timeIntervalSince1970: Double(update.updateTime) / 1000)),
            updateUser: update.updateUser.map { TemplateUser(email: UpdateUserEmail.address(forTokenName: $0)) },
            description: update.description,
            updateOrigin: update.updateOrigin.map(UpdateOrigin.init(rawValue:)),
            updateType: updateType,
            rollbackSource: update.rollbackSource,
            canary: canaryAction == CanaryAction.canary ? true : nil,
            canarySource: update.canarySource,
            promotedFrom: update.promotedFrom
        )
    }
}
