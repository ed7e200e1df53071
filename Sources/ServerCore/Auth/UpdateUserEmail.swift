/// `updateUser.email` of a version. The Admin SDKs validate it as an email address (spec §8.2),
/// so the admin token's name is recorded as is when it is a plausible address
/// (`release-bot@acme.com`) and otherwise as `<name>@example.com` (`quick-start@example.com`).
/// Applied when a version is shown, so versions published before keep a valid address too.
package enum UpdateUserEmail {
    static func address(forTokenName name: String) -> String {
        if isPlausibleAddress(name) { return name }
        let local = String(name.lowercased().unicodeScalars.map { isLocalPartScalar($0) ? Character($0) : "-" })
        return (local.isEmpty ? "admin" : local) + "@example.com"
    }

    /// One `@`, a local part of safe characters, and a dotted domain that is not one of the
    /// local-only names clients reject.
    package static func isPlausibleAddress(_ text: String) -> Bool {
        guard isPersonAddress(text), let domain = text.split(separator: "@").last else { return false }
        let labels = domain.lowercased().split(separator: ".")
        guard labels.count >= 2, let top = labels.last, top.count >= 2, top.allSatisfy(\.isLetter) else { return false }
        return !["local", "test", "localhost", "invalid"].contains(String(top))
    }

    /// An address a directory may give a person: one `@`, a local part of safe characters and
    /// a domain of one or more labels — internal names such as `corp.local` included (Active
    /// Directory's are often so). A person's address only names them here; a version shows it
    /// through ``address(forTokenName:)``, so no SDK ever reads one it would reject.
    package static func isPersonAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].unicodeScalars.allSatisfy(isLocalPartScalar) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { !$0.isEmpty && $0.unicodeScalars.allSatisfy(isDomainScalar) } && text.utf8.count <= 254
    }

    private static func isLocalPartScalar(_ scalar: Unicode.Scalar) -> Bool {
        isDomainScalar(scalar) || scalar == "." || scalar == "_" || scalar == "+"
    }

    private static func isDomainScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }
}
