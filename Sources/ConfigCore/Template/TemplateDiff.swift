/// What changed between two templates, for a JSON answer (e.g. comparing two versions).
///
/// Parameters are compared by key wherever they live, so moving a key between groups is a
/// change of its `group`. Conditions are compared by name; a change of the relative order of the
/// conditions present in both is reported separately, since order is priority.
public struct TemplateDiff: Sendable, Equatable, Codable {
    /// Keys only in the new template, sorted.
    public var addedParameters: [String]
    /// Keys only in the old template, sorted.
    public var removedParameters: [String]
    /// Keys in both whose definition differs, sorted by key.
    public var changedParameters: [ParameterChange]
    /// Names only in the new template, in its order.
    public var addedConditions: [String]
    /// Names only in the old template, in its order.
    public var removedConditions: [String]
    /// Names in both whose rule or colour differs, in the new template's order.
    public var changedConditions: [ConditionChange]
    /// The names present in both, in old and new order; `nil` when that order is unchanged.
    public var conditionOrder: ValueChange<[String]>?
    /// Group names only in the new template, sorted.
    public var addedGroups: [String]
    /// Group names only in the old template, sorted.
    public var removedGroups: [String]
    /// Groups in both whose description differs, sorted by name.
    public var changedGroups: [GroupChange]
    /// What the added parameters, conditions and groups hold, in the order of the lists above,
    /// so a reviewer sees what a version gains and not only names.
    public var added: DiffContent
    /// What the removed ones held.
    public var removed: DiffContent

    /// True when the templates define the same conditions, parameters and groups (versions
    /// are not compared).
    public var isEmpty: Bool {
        addedParameters.isEmpty && removedParameters.isEmpty && changedParameters.isEmpty
            && addedConditions.isEmpty && removedConditions.isEmpty && changedConditions.isEmpty
            && conditionOrder == nil && addedGroups.isEmpty && removedGroups.isEmpty && changedGroups.isEmpty
    }

    /// The changes that turn `old` into `new`.
    public init(from old: RemoteConfigTemplate, to new: RemoteConfigTemplate) {
        let oldParameters = Self.parametersByKey(old)
        let newParameters = Self.parametersByKey(new)
        addedParameters = newParameters.keys.filter { oldParameters[$0] == nil }.sorted()
        removedParameters = oldParameters.keys.filter { newParameters[$0] == nil }.sorted()
        changedParameters = newParameters.keys.sorted().compactMap { key in
            oldParameters[key].flatMap { ParameterChange(key: key, from: $0, to: newParameters[key]!) }
        }

        let oldConditions = Dictionary(old.conditions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newConditions = Dictionary(new.conditions.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        addedConditions = Self.uniqueNames(new.conditions).filter { oldConditions[$0] == nil }
        removedConditions = Self.uniqueNames(old.conditions).filter { newConditions[$0] == nil }
        changedConditions = Self.uniqueNames(new.conditions).compactMap { name in
            oldConditions[name].flatMap { ConditionChange(from: $0, to: newConditions[name]!) }
        }
        let oldOrder = Self.uniqueNames(old.conditions).filter { newConditions[$0] != nil }
        let newOrder = Self.uniqueNames(new.conditions).filter { oldConditions[$0] != nil }
        conditionOrder = oldOrder == newOrder ? nil : ValueChange(from: oldOrder, to: newOrder)

        addedGroups = new.parameterGroups.keys.filter { old.parameterGroups[$0] == nil }.sorted()
        removedGroups = old.parameterGroups.keys.filter { new.parameterGroups[$0] == nil }.sorted()
        changedGroups = new.parameterGroups.keys.sorted().compactMap { name in
            guard let before = old.parameterGroups[name], let after = new.parameterGroups[name],
                  let change = ValueChange.between(before.description, after.description)
            else { return nil }
            return GroupChange(name: name, description: change)
        }

        added = DiffContent(parameters: addedParameters.map { ParameterContent(newParameters[$0]!) },
                            conditions: addedConditions.map { newConditions[$0]! },
                            groups: addedGroups.map { GroupContent(name: $0, description: new.parameterGroups[$0]!.description) })
        removed = DiffContent(parameters: removedParameters.map { ParameterContent(oldParameters[$0]!) },
                              conditions: removedConditions.map { oldConditions[$0]! },
                              groups: removedGroups.map { GroupContent(name: $0, description: old.parameterGroups[$0]!.description) })
    }

    /// The first definition of each key (see `RemoteConfigTemplate.allParameters`).
    private static func parametersByKey(_ template: RemoteConfigTemplate) -> [String: RemoteConfigTemplate.ParameterEntry] {
        var result: [String: RemoteConfigTemplate.ParameterEntry] = [:]
        for entry in template.allParameters where result[entry.key] == nil {
            result[entry.key] = entry
        }
        return result
    }

    private static func uniqueNames(_ conditions: [RemoteConfigCondition]) -> [String] {
        var seen = Set<String>()
        return conditions.map(\.name).filter { seen.insert($0).inserted }
    }
}

/// An old and a new value.
public struct ValueChange<Value: Sendable & Equatable & Codable>: Sendable, Equatable, Codable {
    public var from: Value
    public var to: Value

    public init(from: Value, to: Value) {
        self.from = from
        self.to = to
    }

    /// `nil` when `from == to`.
    static func between(_ from: Value, _ to: Value) -> ValueChange? {
        from == to ? nil : ValueChange(from: from, to: to)
    }
}

/// How one parameter changed; members that did not change are `nil` (left out of the JSON).
public struct ParameterChange: Sendable, Equatable, Codable {
    public var key: String
    public var defaultValue: ValueChange<ParameterValue?>?
    public var conditionalValues: ConditionalValuesChange?
    public var valueType: ValueChange<ParameterValueType>?
    public var description: ValueChange<String?>?
    /// The group holding the key (`nil` = top level).
    public var group: ValueChange<String?>?

    /// `nil` when nothing changed.
    init?(key: String, from old: RemoteConfigTemplate.ParameterEntry, to new: RemoteConfigTemplate.ParameterEntry) {
        self.key = key
        defaultValue = .between(old.parameter.defaultValue, new.parameter.defaultValue)
        conditionalValues = ConditionalValuesChange(from: old.parameter.conditionalValues, to: new.parameter.conditionalValues)
        valueType = .between(old.parameter.valueType, new.parameter.valueType)
        description = .between(old.parameter.description, new.parameter.description)
        group = .between(old.group, new.group)
        if defaultValue == nil, conditionalValues == nil, valueType == nil, description == nil, group == nil {
            return nil
        }
    }
}

/// Which conditional values of a parameter changed, by condition name (each list sorted).
public struct ConditionalValuesChange: Sendable, Equatable, Codable {
    public var added: [String]
    public var removed: [String]
    /// Names present before and after with a different value.
    public var changed: [String]
    /// Every name above: its value before (`nil` when added) and after (`nil` when removed).
    public var values: [String: ValueChange<ParameterValue?>]

    /// `nil` when the maps are equal.
    init?(from old: [String: ParameterValue], to new: [String: ParameterValue]) {
        guard old != new else { return nil }
        added = new.keys.filter { old[$0] == nil }.sorted()
        removed = old.keys.filter { new[$0] == nil }.sorted()
        changed = new.keys.filter { old[$0] != nil && old[$0] != new[$0] }.sorted()
        values = Dictionary(uniqueKeysWithValues: (added + removed + changed).map { ($0, ValueChange(from: old[$0], to: new[$0])) })
    }
}

/// How one condition changed; unchanged members are `nil`.
public struct ConditionChange: Sendable, Equatable, Codable {
    public var name: String
    public var expression: ValueChange<String?>?
    public var condition: ValueChange<JSONValue?>?
    public var tagColor: ValueChange<String?>?

    /// `nil` when nothing changed.
    init?(from old: RemoteConfigCondition, to new: RemoteConfigCondition) {
        name = new.name
        expression = .between(old.expression, new.expression)
        condition = .between(old.condition, new.condition)
        tagColor = .between(old.tagColor, new.tagColor)
        if expression == nil, condition == nil, tagColor == nil { return nil }
    }
}

/// A group whose description changed.
public struct GroupChange: Sendable, Equatable, Codable {
    public var name: String
    public var description: ValueChange<String?>
}

/// The parameters, conditions and groups a diff adds or removes, whole.
public struct DiffContent: Sendable, Equatable, Codable {
    public var parameters: [ParameterContent]
    public var conditions: [RemoteConfigCondition]
    public var groups: [GroupContent]
}

/// A parameter as the template holds it, with its key and group: `{"key", "group"?,
/// "defaultValue"?, "conditionalValues"?, "description"?, "valueType"}`.
public struct ParameterContent: Sendable, Equatable, Codable {
    public var key: String
    /// The group holding it; `nil` at the top level.
    public var group: String?
    public var parameter: RemoteConfigParameter

    init(_ entry: RemoteConfigTemplate.ParameterEntry) {
        key = entry.key
        group = entry.group
        parameter = entry.parameter
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TemplateCodingKey.self)
        key = try container.decode(String.self, "key")
        group = try container.decodeIfPresent(String.self, "group")
        parameter = try RemoteConfigParameter(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TemplateCodingKey.self)
        try container.encode(key, forKey: "key")
        try container.encodeIfPresent(group, forKey: "group")
        try parameter.encode(to: encoder)
    }
}

/// A group's name and description (its parameters are listed with the parameters).
public struct GroupContent: Sendable, Equatable, Codable {
    public var name: String
    public var description: String?
}
