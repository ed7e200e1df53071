/// `updateUser.email` of a version. The Admin SDKs validate it as an email address (spec §8.2),
/// so the admin token's name is recorded as is when it is a plausible address
/// (`release-bot@acme.com`) and otherwise as `<name>@example.com` (`quick-start@example.com`).
/// Applied when a version is shown, so versions published before keep a valid address too.
enum UpdateUserEmail {
    static func address(forTokenName name: String) -> String {
        if isPlausibleAddress(name) { return name }
        let local = String(name.lowercased().unicodeScalars.map { isLocalPartScalar($0) ? Character($0) : "-" })
        return (local.isEmpty ? "admin" : local) + "@example.com"
    }

    /// One `@`, a local part of safe characters, and a dotted domain that is not one of the
    /// local-only names clients reject.
    static func isPlausibleAddress(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].unicodeScalars.allSatisfy(isLocalPartScalar) else { return false }
        let labels = parts[1].lowercased().split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(isDomainScalar) }),
              let top = labels.last, top.count >= 2, top.allSatisfy(\.isLetter) else { return false }
        return !["local", "test", "localhost", "invalid"].contains(String(top))
    }

    private static func isLocalPartScalar(_ scalar: Unicode.Scalar) -> Bool {
        isDomainScalar(scalar) || scalar == "." || scalar == "_" || scalar == "+"
    }

    private static func isDomainScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }
}
