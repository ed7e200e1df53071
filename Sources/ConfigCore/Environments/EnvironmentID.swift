/// The id of one of a project's environments (`development`, `staging`, `production`…;
/// docs/environments.md): lowercase letters, digits and hyphens, starting with a letter, at most
/// 30 characters. Every project has `production`, which Firebase's paths and API keys made
/// before environments serve.
public struct EnvironmentID: RawRepresentable, Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The environment every project has, and the one Firebase's paths name.
    public static let production = EnvironmentID(checked: "production")
    public static let maxLength = 30

    /// An id as a user wrote it; nil when it is not one (`problem(with:)` says why).
    public init?(rawValue: String) {
        guard Self.problem(with: rawValue) == nil else { return nil }
        self.rawValue = rawValue
    }

    private init(checked: String) {
        rawValue = checked
    }

    /// Why `text` cannot be an environment's id, or nil when it can.
    public static func problem(with text: String) -> String? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
            return "an environment's id starts with a lowercase letter"
        }
        guard bytes.count <= maxLength else { return "an environment's id has at most \(maxLength) characters" }
        let allowed = bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        return allowed ? nil : "an environment's id holds only lowercase letters, digits and hyphens"
    }

    public var description: String { rawValue }

    /// Whether this is production (a comparison of two short strings' bits, for the hot paths).
    var isProduction: Bool { rawValue == Self.production.rawValue }

    public static func < (lhs: EnvironmentID, rhs: EnvironmentID) -> Bool { lhs.rawValue < rhs.rawValue }
}
