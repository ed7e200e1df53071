/// One of a project's templates short of the project: its kind (spec §1.2) in one of the
/// project's environments.
///
/// Its `rawValue` names it in the store, in notifications between workers and nodes and in
/// change records: the kind alone in production (`firebase`, `firebase-server`, as Firebase names
/// them, so everything stored before environments existed is production's as it is), and
/// `<environment>/<kind>` in any other environment (`staging/firebase`). Compare kinds with
/// `kind`: `.client` and `.server` are production's.
public struct TemplateNamespace: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Which kind of template a namespace holds.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// `firebase`: client templates, fetched by the mobile and web SDKs; conditions are
        /// expressions (§6).
        case client = "firebase"
        /// `firebase-server`: server templates, evaluated by the Admin SDKs; conditions are
        /// structured `OneOfCondition`s, authored either structured or as expressions that compile
        /// to them (§5.1).
        case server = "firebase-server"
    }

    public let kind: Kind
    public let environment: EnvironmentID

    /// Production's client template.
    public static let client = TemplateNamespace(.client)
    /// Production's server template.
    public static let server = TemplateNamespace(.server)

    public init(_ kind: Kind, in environment: EnvironmentID = .production) {
        self.kind = kind
        self.environment = environment
    }

    /// The same kind of template in `environment`.
    public func `in`(_ environment: EnvironmentID) -> TemplateNamespace {
        TemplateNamespace(kind, in: environment)
    }

    public var rawValue: String {
        environment == .production ? kind.rawValue : "\(environment.rawValue)/\(kind.rawValue)"
    }

    public init?(rawValue: String) {
        let parts = rawValue.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 1 {
            guard let kind = Kind(rawValue: rawValue) else { return nil }
            self.init(kind)
            return
        }
        // Production is never written with a prefix: one name per template.
        guard let environment = EnvironmentID(rawValue: String(parts[0])), environment != .production,
              let kind = Kind(rawValue: String(parts[1])) else { return nil }
        self.init(kind, in: environment)
    }

    public var description: String { rawValue }

    // Equal and hashed by kind and environment, not through `rawValue` (what `RawRepresentable`
    // would do): every fetch looks its template up by a key holding one, and spelling the name
    // out for each comparison and hash cost more than the rest of the lookup. Two namespaces
    // have the same `rawValue` exactly when they have the same kind and environment.
    public static func == (lhs: TemplateNamespace, rhs: TemplateNamespace) -> Bool {
        lhs.kindNumber == rhs.kindNumber && lhs.environment.rawValue == rhs.environment.rawValue
    }

    /// Production's namespaces, nearly all that are looked up, hash their kind alone; another
    /// environment's hash its id besides.
    public func hash(into hasher: inout Hasher) {
        if environment.isProduction {
            hasher.combine(kindNumber)
        } else {
            hasher.combine(kindNumber | 0x80)
            hasher.combine(environment.rawValue)
        }
    }

    /// The kind as a small number, compared and hashed without its name.
    private var kindNumber: UInt8 {
        switch kind {
        case .client: 0
        case .server: 1
        }
    }
}
