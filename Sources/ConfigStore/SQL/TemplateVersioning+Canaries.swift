package import ConfigCore
package import Foundation

/// Staged publishes: a canary version served to a share of the instances, then promoted to
/// everyone or aborted. Each step is one write that holds the template's head, like a publish.
extension TemplateVersioning {
    /// See `TemplateStore.publishCanary`.
    package func publishCanary(
        project: String, namespace: TemplateNamespace, templateJSON: [UInt8], expectedVersion: Int64?,
        microPercent: Int64, seed: String, promoteAt: Date?, metadata: PublishMetadata
    ) throws(StoreError) -> (version: StoredVersion, canary: StoredCanary) {
        try TemplateStoreRules.validate(microPercent: microPercent)
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.write(announcing: .template(key, version: \.version.versionNumber)) { connection in
            let head = try lockHeadForNewVersion(of: key, expecting: expectedVersion, creatingIt: false, on: connection)
            guard head.number > 0 else { throw TemplateStoreRules.canaryNeedsStableVersion }
            let version = StoredVersion(
                project: project, namespace: namespace, versionNumber: head.number + 1,
                updateTime: nextUpdateTime(after: head.updateTime), updateUser: metadata.updateUser,
                description: metadata.description, updateOrigin: metadata.updateOrigin, updateType: metadata.updateType,
                rollbackSource: nil, canaryAction: .canary, templateJSON: templateJSON)
            try complete(metadata.completes, of: key, version: version, on: connection)
            try connection.insert(version)
            // The active (stable) version is one below the canary: never pruned here.
            try connection.deleteVersions(
                of: key, through: min(version.versionNumber - Int64(retention), head.number - 1))
            let canary = StoredCanary(
                project: project, namespace: namespace, canaryVersion: version.versionNumber, microPercent: microPercent,
                seed: seed, startTime: version.updateTime, updateTime: version.updateTime, updateUser: metadata.updateUser,
                promoteAt: promoteAt)
            try connection.insertCanary(canary)
            try connection.insertEvent(WebhookEvent(.canaryStart, version: version, data: Self.canaryData(canary)))
            return (version, canary)
        }
    }

    /// See `TemplateStore.setCanaryShare`.
    package func setCanaryShare(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, microPercent: Int64,
        updateUser: String?, completes: ChangeRequestCompletion?
    ) throws(StoreError) -> StoredCanary {
        try TemplateStoreRules.validate(microPercent: microPercent)
        let key = TemplateKey(project: project, namespace: namespace)
        return try engine.write(announcing: .template(key, version: \.canaryVersion)) { connection in
            _ = try connection.lockHead(of: key, creatingIt: false)
            var canary = try runningCanary(of: key, expected: expectedCanary, on: connection)
            try TemplateStoreRules.validateShareGrows(from: canary.microPercent, to: microPercent)
            canary.microPercent = microPercent
            canary.updateTime = nextUpdateTime(after: TemplateStoreRules.milliseconds(canary.updateTime))
            canary.updateUser = updateUser
            if let completes {
                guard try connection.completeChangeRequest(
                    completes, of: key, version: canary.canaryVersion, time: TemplateStoreRules.milliseconds(canary.updateTime))
                else { throw StoreError.changeRequestMoved(completes.id) }
                for type in completes.events {
                    try connection.insertEvent(WebhookEvent(type: type, project: key.project, namespace: key.namespace.rawValue,
                                                            time: canary.updateTime, data: completes.eventData))
                }
            }
            try connection.updateCanary(canary)
            try connection.insertEvent(WebhookEvent(
                type: WebhookEventType.canaryShare.rawValue, project: key.project, namespace: key.namespace.rawValue,
                time: canary.updateTime,
                update: WebhookEvent.Update(versionNumber: canary.canaryVersion,
                                            updateTime: TemplateStoreRules.milliseconds(canary.updateTime), updateUser: updateUser),
                data: Self.canaryData(canary)))
            return canary
        }
    }

    /// See `TemplateStore.promoteCanary`.
    package func promoteCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try endCanary(of: TemplateKey(project: project, namespace: namespace), expected: expectedCanary, promote: true,
                      metadata: metadata)
    }

    /// See `TemplateStore.abortCanary`.
    package func abortCanary(
        project: String, namespace: TemplateNamespace, expectedCanary: Int64?, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try endCanary(of: TemplateKey(project: project, namespace: namespace), expected: expectedCanary, promote: false,
                      metadata: metadata)
    }

    /// Appends the version that ends the running canary (a copy of it, or of the stable version),
    /// and deletes the canary.
    private func endCanary(
        of key: TemplateKey, expected: Int64?, promote: Bool, metadata: PublishMetadata
    ) throws(StoreError) -> StoredVersion {
        try engine.write(announcing: .template(key, version: \.versionNumber)) { connection in
            let stable = try connection.lockHead(of: key, creatingIt: false).number
            let canary = try runningCanary(of: key, expected: expected, on: connection)
            let source = promote ? canary.canaryVersion : stable
            guard let copied = try connection.version(of: key, number: source) else {
                throw StoreError.versionNotFound(source)
            }
            try connection.deleteCanary(of: key)
            let description = promote
                ? TemplateStoreRules.promotionDescription(canary: canary.canaryVersion)
                : TemplateStoreRules.abortDescription(canary: canary.canaryVersion, stable: stable)
            let version = StoredVersion(
                project: key.project, namespace: key.namespace, versionNumber: canary.canaryVersion + 1,
                updateTime: nextUpdateTime(after: TemplateStoreRules.milliseconds(canary.updateTime)),
                updateUser: metadata.updateUser, description: metadata.description ?? description,
                updateOrigin: metadata.updateOrigin, updateType: promote ? metadata.updateType : .rollback,
                rollbackSource: promote ? nil : stable, canaryAction: promote ? .promotion : .abort,
                canarySource: canary.canaryVersion, templateJSON: copied.templateJSON)
            // A promotion's diff shows what everyone now gets; an abort's, what the canary's share lost.
            let event = WebhookEvent(promote ? .canaryPromote : .canaryAbort, version: version,
                                     diffFrom: promote ? stable : canary.canaryVersion, data: Self.canaryData(canary))
            return try append(version, of: key, completing: metadata.completes, event: event, on: connection)
        }
    }

    /// The `data` of a canary step's event: the canary's version and share (in percent).
    static func canaryData(_ canary: StoredCanary) -> [UInt8] {
        let percent = Double(canary.microPercent) / 1_000_000
        return Array("{\"canary\":{\"percent\":\(percent),\"versionNumber\":\"\(canary.canaryVersion)\"}}".utf8)
    }

    /// The running canary of `key`, which the caller expected (nil: any).
    /// - Throws: `projectNotFound`, `noCanary`, `canaryMismatch`.
    private func runningCanary(of key: TemplateKey, expected: Int64?, on connection: Engine.Connection) throws -> StoredCanary {
        guard let canary = try connection.canary(of: key) else {
            try connection.requireProject(key.project)
            throw StoreError.noCanary
        }
        if let expected, expected != canary.canaryVersion {
            throw StoreError.canaryMismatch(current: canary.canaryVersion)
        }
        return canary
    }
}
