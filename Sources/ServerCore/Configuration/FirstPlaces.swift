/// Where each value was first declared, so that a second declaration is refused naming both.
struct FirstPlaces {
    private var places: [String: (place: String, owner: String?)] = [:]

    /// Records `value` at `place`; throws `conflict(first place)` when another owner declared it
    /// already (the same owner declaring it again is no conflict).
    mutating func note(_ value: String, at place: String, owner: String? = nil, _ conflict: (String) -> String) throws {
        if let first = places[value] {
            guard owner != nil, first.owner == owner else { throw ConfigurationError(conflict(first.place)) }
            return
        }
        places[value] = (place, owner)
    }

    func place(of value: String) -> String? { places[value]?.place }
}
