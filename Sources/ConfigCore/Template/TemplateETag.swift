/// The ETag of a stored template version: `etag-<projectNumber>-<versionNumber>` (spec §0, §2.3).
///
/// Sent on GET/PUT/rollback answers and expected back in `If-Match`. A validate-only PUT answers
/// with version `0` (`etag-123456789012-0`), as does a project that has published nothing yet.
public struct TemplateETag: Sendable, Hashable, LosslessStringConvertible {
    /// The numeric project number (not the project id), e.g. `123456789012`.
    public let projectNumber: String
    /// The template version; `0` for validate-only answers and empty projects.
    public let versionNumber: Int64

    /// - Parameters:
    ///   - projectNumber: ASCII digits only; anything else is a bug in the caller.
    ///   - versionNumber: ≥ 0.
    public init(projectNumber: String, versionNumber: Int64) {
        precondition(Self.isDigits(projectNumber), "a project number is ASCII digits")
        precondition(versionNumber >= 0, "a version number is never negative")
        self.projectNumber = projectNumber
        self.versionNumber = versionNumber
    }

    /// The ETag of a validate-only answer (or of a project without a template).
    public static func validateOnly(projectNumber: String) -> TemplateETag {
        TemplateETag(projectNumber: projectNumber, versionNumber: 0)
    }

    /// Parses `etag-<digits>-<digits>`, also inside double quotes (as generic HTTP clients send
    /// ETags); `nil` otherwise.
    public init?(_ description: String) {
        var text = Substring(description)
        if text.count >= 2, text.first == "\"", text.last == "\"" {
            text = text.dropFirst().dropLast()
        }
        guard text.hasPrefix("etag-") else { return nil }
        let parts = text.dropFirst(5).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, Self.isDigits(parts[0]), Self.isDigits(parts[1]),
              let version = Int64(parts[1])
        else { return nil }
        projectNumber = String(parts[0])
        versionNumber = version
    }

    /// Parses an `If-Match` value (not `*`, which the caller handles); throws a 400 naming the
    /// header and the expected format.
    public static func parse(_ text: String) throws(TemplateValidationError) -> TemplateETag {
        guard let etag = TemplateETag(text) else {
            throw TemplateValidationError(issues: [.init(
                path: "If-Match",
                message: "'\(text.prefix(80))' is not a template ETag; expected etag-<projectNumber>-<versionNumber>"
            )])
        }
        return etag
    }

    /// `etag-123456789012-42`.
    public var description: String { "etag-\(projectNumber)-\(versionNumber)" }

    private static func isDigits(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
