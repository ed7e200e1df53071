/// What `TemplateValidator` enforces; defaults are Firebase's publish-time limits (spec §2.9).
public struct TemplateLimits: Sendable, Equatable {
    /// Parameters per template, top-level and grouped together (current docs: 3000; older: 2000).
    public var maxParameters = 3000
    /// Conditions per template.
    public var maxConditions = 2000
    /// Characters in a parameter key.
    public var maxParameterKeyLength = 256
    /// Keys must match `^[a-zA-Z_][0-9a-zA-Z_]*$` (the console's rule).
    public var restrictsParameterKeyCharacters = true
    /// Characters in a parameter description (the API reference says 256, Node's typings 100).
    public var maxParameterDescriptionLength = 256
    /// Characters in a group name and in a group description.
    public var maxGroupNameLength = 256
    public var maxGroupDescriptionLength = 256
    /// Characters in a condition name.
    public var maxConditionNameLength = 256
    /// Names must match `^[-_0-9a-zA-Z '!%.]+$` (the console's rule).
    public var restrictsConditionNameCharacters = true
    /// Characters in `version.description`.
    public var maxVersionDescriptionLength = 1024
    /// Total characters (UTF-16 units) of every value string in the template.
    public var maxTotalValueLength = 1_000_000
    /// `BOOLEAN` values must be exactly `true` or `false`; when `false`, any letter case passes.
    public var booleanValuesAreCaseSensitive = true
    /// Issues listed in one `TemplateValidationError`; further ones are only counted, so an
    /// error message stays short.
    public var maxReportedIssues = 20

    /// Firebase's limits.
    public static let firebase = TemplateLimits()

    public init() {}
}
