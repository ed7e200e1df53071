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

    /// The namespace the path names or implies, as the path spells it (nil for a route beyond
    /// templates).
    var namespaceText: String? {
        route.namespaceIndex.map(parameter(at:)) ?? route.declaration.impliedNamespace?.rawValue
    }
}
