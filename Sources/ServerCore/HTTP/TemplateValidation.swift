package import ConfigCore
package import ConfigStore
import Foundation

/// What a call that writes a template reads of its request, shared by the management API's
/// publish and change control's proposals: the template body, decoded, validated and compiled,
/// and the version `If-Match` names.
package struct TemplateValidation: Sendable {
    let validator: TemplateValidator

    package init(validator: TemplateValidator) {
        self.validator = validator
    }

    /// Decodes, validates and compiles a template body; every problem is a 400 naming its path.
    package func decodeValidTemplate(
        _ body: [UInt8], namespace: TemplateNamespace
    ) throws -> (RemoteConfigTemplate, CompiledTemplate) {
        switch try read(body, namespace: namespace) {
        case .success(let read): return read
        case .failure(let invalid): throw APIError.invalidTemplate(invalid)
        }
    }

    /// The problems a publish of `body` would be refused for (none: `[]`); a body that is empty
    /// or not UTF-8 is still a 400.
    package func problems(in body: [UInt8], namespace: TemplateNamespace) throws -> [TemplateValidationError.Issue] {
        if case .failure(let invalid) = try read(body, namespace: namespace) { return invalid.issues }
        return []
    }

    /// The body decoded, validated and compiled, or the template's problems.
    private func read(
        _ body: [UInt8], namespace: TemplateNamespace
    ) throws -> Result<(RemoteConfigTemplate, CompiledTemplate), TemplateValidationError> {
        guard !body.isEmpty else { throw APIError.badRequest("The request body must be a template (JSON object).") }
        // Its members are Firebase's to define (what its tools send is accepted); its bytes are ours.
        try ManagementBody.requireUTF8(body)
        do throws(TemplateValidationError) {
            let template = try RemoteConfigTemplate.decode(json: Data(body))
            try validator.validate(template, namespace: namespace)
            return .success((template, try CompiledTemplate(template, namespace: namespace)))
        } catch {
            return .failure(error)
        }
    }

    /// The version an `If-Match` names: nil for `*`, else the version of one of `project`'s ETags.
    package static func expectedVersion(ifMatch: String, project: StoredProject) throws -> Int64? {
        if ifMatch == "*" { return nil }
        let unquoted = ifMatch.hasPrefix("\"") && ifMatch.hasSuffix("\"") && ifMatch.count >= 2
            ? String(ifMatch.dropFirst().dropLast()) : ifMatch
        guard let etag = TemplateETag(unquoted) else {
            throw APIError.badRequest("If-Match '\(ifMatch)' is not a template ETag (etag-<projectNumber>-<version>) or '*'.")
        }
        guard etag.projectNumber == project.number || etag.projectNumber == project.id else {
            throw APIError(400, "[VERSION_MISMATCH]: The ETag belongs to project \(etag.projectNumber), not \(project.number).",
                           canonicalStatus: "FAILED_PRECONDITION")
        }
        return etag.versionNumber
    }
}
