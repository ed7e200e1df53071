/// The `route` label of the request metrics: a route's name without its ids, one of the set
/// the route table declares (an unknown custom method or step is `…:unknown`, a path no route
/// has `unknown`: clients cannot grow the set). Each has a small number, so that a request is
/// counted in an array slot instead of under its name in a dictionary (hashing the name cost
/// more than the rest of the count).
struct RouteLabel: Sendable, Hashable {
    /// Its slot: the table numbers the labels from 0, in the order first declared.
    let index: Int
    /// The label as `/metrics` shows it.
    let name: String
}
