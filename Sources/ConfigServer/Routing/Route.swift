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
    /// Where `{project}` and `{namespace}` are among the parameters.
    let projectIndex: Int?
    let namespaceIndex: Int?

    init(_ declaration: RouteDeclaration, label: RouteLabel) {
        self.declaration = declaration
        self.label = label
        parameterNames = declaration.path.parameterNames
        projectIndex = parameterNames.firstIndex(of: "project")
        namespaceIndex = parameterNames.firstIndex(of: "namespace")
    }

    /// The role a request to `uri` needs when the route asks `asked`, as its rules make it
    /// (from what the request names: a validate-only publish, its template's policy).
    func neededRole(_ asked: Role, for uri: RequestURI, _ arguments: RouteArguments) -> Role {
        declaration.rules.reduce(asked) { needed, rule in rule.role(uri, arguments, needed) }
    }
}
