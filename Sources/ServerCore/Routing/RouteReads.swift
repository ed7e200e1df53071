/// What a route reads that another worker or node may have changed: before it is answered,
/// each is read again if a change to it was acknowledged since it was read here
/// (read-your-writes, docs/consistency.md).
package struct RouteReads: Sendable {
    /// The records behind a route's checks and answers.
    enum Plane: Sendable {
        /// Projects and their client API keys: what the client API reads.
        case data
        /// Principals, memberships, tokens, console sessions and change policies (with the
        /// projects): what the management API reads.
        case control
    }

    /// Nil for a route that reads neither (health, the console's files).
    let plane: Plane?
    /// Whether the template its path names must be current before its handler runs. The
    /// fetch and OFREP's evaluations look theirs up themselves, in the one lookup that serves it.
    let template: Bool

    package static let nothing = RouteReads(plane: nil, template: false)
    /// The client API, which checks its own template.
    package static let dataPlane = RouteReads(plane: .data, template: false)
    static let dataPlaneAndTemplate = RouteReads(plane: .data, template: true)
    package static let controlPlane = RouteReads(plane: .control, template: false)
    package static let controlPlaneAndTemplate = RouteReads(plane: .control, template: true)
}
