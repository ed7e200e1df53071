package import ConfigCore
package import Foundation

/// The rules of the stores that do not depend on the engine (every implementation uses them): argument checks and their
/// messages, times in milliseconds, page tokens, the descriptions the store writes.
package enum TemplateStoreRules {
    /// `publish` takes only these update types.
    package static func validatePublish(updateType: UpdateType) throws(StoreError) {
        guard updateType == .incrementalUpdate || updateType == .forcedUpdate else {
            throw StoreError.invalidArgument(
                "updateType must be INCREMENTAL_UPDATE or FORCED_UPDATE, got '\(updateType.rawValue)'")
        }
    }

    /// A canary share is 1 ... 100_000_000 micro-percent.
    package static func validate(microPercent: Int64) throws(StoreError) {
        guard (1...100_000_000).contains(microPercent) else {
            throw StoreError.invalidArgument(
                "the canary share must be above 0 and at most 100 %, got \(Double(microPercent) / 1_000_000) %")
        }
    }

    /// A share change must not send an instance that was told of the canary back.
    package static func validateShareGrows(from current: Int64, to requested: Int64) throws(StoreError) {
        guard requested >= current else {
            throw StoreError.invalidArgument(
                "the share can only grow (it is \(Double(current) / 1_000_000) %): "
                    + "an instance told of the canary stays in it; abort the canary instead")
        }
    }

    package static let canaryNeedsStableVersion = StoreError.invalidArgument(
        "a canary needs a stable version to compare with: publish a first version normally")

    /// `listVersions`' page size and end version.
    package static func validateListing(pageSize: Int?, endVersionNumber: Int64?) throws(StoreError) {
        if let pageSize, pageSize < 1 {
            throw StoreError.invalidArgument("pageSize must be at least 1, got \(pageSize)")
        }
        if let endVersionNumber, endVersionNumber < 1 {
            throw StoreError.invalidArgument("endVersionNumber must be greater than 0, got \(endVersionNumber)")
        }
    }

    /// An access record's id: 1 to 512 bytes.
    package static func validateAccessRecordID(_ id: String) throws(StoreError) {
        guard (1...512).contains(id.utf8.count) else {
            throw StoreError.invalidArgument("an access record's id must be 1 to 512 bytes, got \(id.utf8.count)")
        }
    }

    /// An audit page: 1 ... 1000 entries, after the entry a token names ("a" and its id).
    package static func auditPage(_ query: AuditQuery) throws(StoreError) -> (size: Int, before: Int64) {
        try idPage(size: query.pageSize, token: query.pageToken, prefix: "a")
    }

    /// A page of `size` from `entries` read with one extra row (which tells that a next page
    /// exists), and the next page's token.
    package static func auditPage(
        _ entries: [AuditEntry], size: Int
    ) -> (entries: [AuditEntry], nextPageToken: String?) {
        idPage(entries, size: size, prefix: "a", id: \.id)
    }

    /// A page of rows numbered by id, newest first: 1 ... 1000 of them, below the id a token
    /// names (`prefix` and the id).
    package static func idPage(size: Int, token: String?, prefix: String) throws(StoreError) -> (size: Int, before: Int64) {
        guard (1...1000).contains(size) else {
            throw StoreError.invalidArgument("pageSize must be 1 to 1000, got \(size)")
        }
        guard let token, !token.isEmpty else { return (size, .max) }
        guard token.hasPrefix(prefix), let id = Int64(token.dropFirst(prefix.count)), id >= 1 else {
            throw StoreError.invalidPageToken(token)
        }
        return (size, id)
    }

    /// A page of `size` from `rows` read with one extra (which tells that a next page exists),
    /// and the next page's token.
    package static func idPage<Row>(
        _ rows: [Row], size: Int, prefix: String, id: (Row) -> Int64
    ) -> ([Row], String?) {
        guard rows.count > size else { return (rows, nil) }
        let page = Array(rows.prefix(size))
        return (page, page.last.map { prefix + "\(id($0))" })
    }

    // MARK: Descriptions

    package static func rollbackDescription(target: Int64) -> String { "Rollback to version \(target)" }

    package static func promotionDescription(canary: Int64) -> String { "Promote canary version \(canary) to every instance" }

    package static func abortDescription(canary: Int64, stable: Int64) -> String {
        "Abort canary version \(canary): back to version \(stable)"
    }

    // MARK: Times

    /// `updateTime` for a new version: now, but never before `previous`, so that time filters
    /// agree with version order even if a clock steps back or nodes' clocks differ.
    package static func nextUpdateTime(now: Date, after previous: Int64?) -> Int64 {
        let now = milliseconds(now)
        return max(now, previous ?? now)
    }

    /// The whole milliseconds since 1970 at or before `date`.
    package static func milliseconds(_ date: Date) -> Int64 {
        let exact = date.timeIntervalSince1970 * 1000
        // A date made of whole milliseconds (`date(milliseconds:)`) may read back a hair below
        // them, which must not lose a millisecond: within a microsecond, take the nearest.
        let nearest = exact.rounded()
        let value = abs(exact - nearest) < 0.001 ? nearest : exact.rounded(.down)
        guard value > Double(Int64.min) else { return .min }
        guard value < Double(Int64.max) else { return .max }
        return Int64(value)
    }

    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    // MARK: Page tokens

    // Opaque to callers: "v" and the newest version number of the next page.
    package static func encodePageToken(_ newest: Int64) -> String { "v\(newest)" }

    /// The newest version of the page a token asks for; nil for no or an empty token.
    package static func decodePageToken(_ token: String?) throws(StoreError) -> Int64? {
        guard let token, !token.isEmpty else { return nil }
        guard token.hasPrefix("v"), let number = Int64(token.dropFirst()), number >= 1 else {
            throw StoreError.invalidPageToken(token)
        }
        return number
    }
}
