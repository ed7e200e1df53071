/// The rules on the routes that change a template directly (a publish, a rollback, a canary's
/// steps): change control's (`DirectChanges`), which the management API's routes carry without
/// knowing change control; the composition wires it in.
package protocol DirectChangeRules: Sendable {
    /// For the routes that change a template directly.
    var rule: RouteRule { get }
    /// For the publish: the rule, and who may publish.
    var publishing: RouteRule { get }
}
