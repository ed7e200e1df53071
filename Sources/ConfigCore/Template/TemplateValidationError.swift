/// A template (or template ETag) that Firebase would refuse: answered `400 INVALID_ARGUMENT`.
///
/// Holds every problem found (up to `TemplateLimits.maxReportedIssues`), in a stable order:
/// version, conditions in list order, groups by name, parameters by key, then template-wide
/// totals.
public struct TemplateValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One problem at one place in the template JSON.
    public struct Issue: Sendable, Equatable, Codable, CustomStringConvertible {
        /// Where, e.g. `parameters.welcome.conditionalValues.ios` or `conditions[1].expression`;
        /// empty for the body as a whole.
        public var path: String
        /// What is wrong, e.g. `unknown condition 'ios'`.
        public var message: String

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    /// The problems found; never empty.
    public let issues: [Issue]
    /// Problems found beyond `issues` and not listed.
    public let omittedIssueCount: Int

    /// HTTP status the API answers with.
    public var httpStatus: Int { 400 }
    /// Google's canonical error code for the error envelope (spec §1.4).
    public var status: String { "INVALID_ARGUMENT" }

    public init(issues: [Issue], omittedIssueCount: Int = 0) {
        precondition(!issues.isEmpty, "a validation error needs an issue")
        self.issues = issues
        self.omittedIssueCount = omittedIssueCount
    }

    /// The error-envelope message, in the style of Firebase's validator (spec §2.9):
    /// `[VALIDATION_ERROR]: parameters.a.conditionalValues.ios: unknown condition 'ios'; …`.
    public var message: String {
        let listed = issues.map(\.description).joined(separator: "; ")
        let more = omittedIssueCount > 0 ? " (and \(omittedIssueCount) more)" : ""
        return "[VALIDATION_ERROR]: " + listed + more
    }

    public var description: String { message }
}
