/// Which kind of template a namespace holds (spec §1.2).
public enum TemplateNamespace: String, Sendable, Hashable, Codable, CaseIterable {
    /// `firebase`: client templates, fetched by the mobile and web SDKs; conditions are
    /// expressions (§6).
    case client = "firebase"
    /// `firebase-server`: server templates, evaluated by the Admin SDKs; conditions are structured
    /// `OneOfCondition`s, authored either structured or as expressions that compile to them (§5.1).
    case server = "firebase-server"
}
