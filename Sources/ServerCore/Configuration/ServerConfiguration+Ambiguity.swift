/// Declarations that two readers could take two ways (docs/configuration.md, "Declarations that
/// could mean two things"): each is refused with a message naming both places, never a secret.
extension ServerConfiguration {
    func refuseAmbiguousDeclarations() throws {
        var keys = FirstPlaces()
        for (index, project) in projects.enumerated() {
            for (keyIndex, key) in (project.apiKeys ?? []).enumerated() {
                let place = Self.keyPlace(index, project.id, keyIndex)
                // The same key twice under one project means one thing.
                try keys.note(SecretDigest(secret: key).hex, at: place, owner: project.id) { Self.sharedClientKey(place, $0) }
            }
        }
        var secrets = FirstPlaces()
        var names = FirstPlaces()
        for (index, token) in adminTokens.enumerated() {
            let place = "adminTokens[\(index)] ('\(token.name)')"
            try names.note(token.name, at: "adminTokens[\(index)]") { first in
                "\(first) and adminTokens[\(index)] are both named '\(token.name)': what each publishes and the audit log "
                    + "would name the same author"
            }
            guard let digest = try Self.digest(of: token, at: place) else { continue }
            try secrets.note(digest, at: place) { first in
                "\(first) and \(place) have the same secret (compared by SHA-256): only one could hold its roles"
            }
            if let key = keys.place(of: digest) {
                throw ConfigurationError("\(place) is also the client key \(key): client keys ship inside apps, "
                    + "and OFREP reads a bearer token as a client key")
            }
        }
        guard signIn.isEnabled else { return }
        var mappings = FirstPlaces()
        for (index, mapping) in signIn.roleMappings.enumerated() {
            let place = "signIn.roleMappings[\(index)]"
            let (kind, value) = mapping.group.map { ("group", $0) } ?? ("emailDomain", (mapping.emailDomain ?? "").lowercased())
            try mappings.note("\(kind)\t\(value)", at: place) { first in
                "\(first) and \(place) both map the \(kind) '\(value)': give it one mapping with every role it holds"
            }
        }
    }

    /// Where the config file declares a client key.
    static func keyPlace(_ index: Int, _ project: String, _ keyIndex: Int) -> String {
        "projects[\(index)] ('\(project)').apiKeys[\(keyIndex)]"
    }

    /// Why a client key may not be under two projects.
    static func sharedClientKey(_ place: String, _ first: String) -> String {
        "the client key \(place) is also \(first): OFREP finds a project by its key alone, so a key belongs to one project"
    }

    /// The lower-case hex SHA-256 a file token is matched by; nil for a token without a secret
    /// (refused elsewhere).
    private static func digest(of token: AdminTokenDeclaration, at place: String) throws -> String? {
        let hashed = try token.sha256.map { hex in
            guard let digest = SecretDigest(hex: hex) else { throw ConfigurationError("\(place): sha256 must be 64 hex digits") }
            return digest.hex
        }
        guard let clear = token.token else { return hashed }
        if AccessToken.id(inSecret: clear) != nil {
            throw ConfigurationError("\(place): a token of the form 'rcs_pat_<id>_…' is looked up among the tokens made "
                + "through the API, never in the file; choose another")
        }
        let digest = SecretDigest(secret: clear).hex
        guard hashed == nil || hashed == digest else {
            throw ConfigurationError("\(place): 'token' and 'sha256' name different secrets; give one of them")
        }
        return digest
    }
}
