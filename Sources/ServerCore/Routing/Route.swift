import ConfigCore
import HTTP1

/// A route as the table compiled it: its declaration, the label its requests are counted
/// under, and where its path's parameters are among those a match captures. A class: every
/// exchange holds its route, and copies of an exchange share it.
final class Route: Sendable {
    let declaration: RouteDeclaration
    let label: RouteLabel
    /// The path's parameters, in the order a match captures them.
    let parameterNames: [String]
    /// Where `{project}`, `{environment}` and `{namespace}` are among the parameters.
    let projectIndex: Int?
    let environmentIndex: Int?
    let namespaceIndex: Int?

    /// - Parameter namingNothing: the table's own answers on a path (the preflight, 405): they
    ///   check and read nothing, not even that the project and namespace it names exist.
    init(_ declaration: RouteDeclaration, label: RouteLabel, namingNothing: Bool = false) {
        self.declaration = declaration
        self.label = label
        parameterNames = declaration.path.parameterNames
        projectIndex = namingNothing ? nil : parameterNames.firstIndex(of: "project")
        environmentIndex = namingNothing ? nil : parameterNames.firstIndex(of: "environment")
        namespaceIndex = namingNothing ? nil : parameterNames.firstIndex(of: "namespace")
    }

    /// The role a request to `uri` needs when the route asks `asked`, as its rules make it
    /// (from what the request names: a validate-only publish, its template's policy).
    func neededRole(_ asked: Role, for uri: RequestURI, _ arguments: RouteArguments) -> Role {
        declaration.rules.reduce(asked) { needed, rule in rule.role(uri, arguments, needed) }
    }
}
