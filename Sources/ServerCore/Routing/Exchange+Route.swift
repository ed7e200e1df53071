import ConfigCore
import HTTP1

/// The values an exchange's path gave its route's parameters.
extension Exchange {
    /// The value of the route's parameter `index` (in `Route.parameterNames`).
    func parameter(at index: Int) -> String {
        parameters.value(at: index, in: uri.path)
    }

    /// The value of parameter `name`, nil when the route's pattern has none so named.
    package func pathParameter(_ name: String) -> String? {
        route.parameterNames.firstIndex(of: name).map(parameter(at:))
    }

    /// The value of parameter `name`, which the route's pattern names (asking for another is a bug).
    package func parameter(_ name: String) -> String {
        guard let value = pathParameter(name) else { preconditionFailure("\(route.declaration.path) has no {\(name)}") }
        return value
    }

    /// The template the path names or implies, short of its project: its kind in the environment
    /// the path names (production when it names none). Nil for a route beyond templates, or a
    /// path naming no such kind or no valid environment id (whether the project has that
    /// environment is `RequestChecks`' to say).
    var namespace: TemplateNamespace? {
        let environment = route.environmentIndex.map { EnvironmentID(rawValue: parameter(at: $0)) } ?? .production
        guard let environment else { return nil }
        let kind = route.namespaceIndex.map { TemplateNamespace.Kind(rawValue: parameter(at: $0)) } ?? route.declaration.impliedNamespace?.kind
        return kind.map { TemplateNamespace($0, in: environment) }
    }
}
