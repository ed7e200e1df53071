import ConfigClient
import Foundation

/// Human renderings of template versions.
enum VersionTable {
    /// One line: number, time, user, origin and type, description.
    static func describe(_ version: TemplateVersion) -> String {
        var parts = ["Version \(version.versionNumber)"]
        if let time = version.updateTime { parts.append(time) }
        if let email = version.updateUser?.email { parts.append(email) }
        let kind = [version.updateOrigin, version.updateType].compactMap { $0 }.joined(separator: " ")
        if !kind.isEmpty { parts.append(kind) }
        if let source = version.rollbackSource { parts.append("rollback of \(source)") }
        if let source = version.promotedFrom { parts.append("promoted from \(source.environment) version \(source.versionNumber)") }
        if let description = version.description, !description.isEmpty { parts.append("\"\(description)\"") }
        return parts.joined(separator: "  ")
    }

    /// Aligned columns, newest first as given.
    static func render(_ versions: [TemplateVersion]) -> String {
        guard !versions.isEmpty else { return "No versions" }
        let header = ["VERSION", "UPDATED", "USER", "TYPE", "DESCRIPTION"]
        let rows = versions.map { version in
            [
                String(version.versionNumber),
                version.updateTime ?? "",
                version.updateUser?.email ?? "",
                version.rollbackSource.map { "ROLLBACK to \($0)" }
                    ?? version.promotedFrom.map { "PROMOTED from \($0.environment) \($0.versionNumber)" } ?? version.updateType ?? "",
                version.description ?? "",
            ]
        }
        return TextTable.render(header: header, rows: rows)
    }
}
