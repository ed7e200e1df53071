/// A compiled regular expression: an NFA program run by a Pike-style simulation that keeps at
/// most one thread per instruction, so matching costs O(text length × program length).
struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        case set(RegexCharSet)
        case anyCharacter(matchesNewline: Bool)
        case assertion(RegexAssertion)
        /// Continue at both targets.
        case split(Int, Int)
        case jump(Int)
        case match
    }

    private(set) var instructions: [Instruction] = []
    /// Whether every match must start at the beginning of the text (the pattern starts `^`/`\A`).
    private var anchoredAtStart = false

    init(compiling node: RegexNode) throws(LinearRegex.SyntaxError) {
        try emit(node)
        try append(.match)
        if case .assertion(.beginText) = instructions.first { anchoredAtStart = true }
    }

    private mutating func append(_ instruction: Instruction) throws(LinearRegex.SyntaxError) {
        guard instructions.count < LinearRegex.maxInstructions else {
            throw LinearRegex.SyntaxError(message: "pattern too large", offset: 0)
        }
        instructions.append(instruction)
    }

    private mutating func emit(_ node: RegexNode) throws(LinearRegex.SyntaxError) {
        switch node {
        case .empty:
            break
        case .set(let set):
            try append(.set(set))
        case .anyCharacter(let matchesNewline):
            try append(.anyCharacter(matchesNewline: matchesNewline))
        case .assertion(let assertion):
            try append(.assertion(assertion))
        case .concatenation(let items):
            for item in items { try emit(item) }
        case .alternation(let branches):
            var jumpsToEnd: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = instructions.count
                    try append(.split(split + 1, -1))
                    try emit(branch)
                    jumpsToEnd.append(instructions.count)
                    try append(.jump(-1))
                    instructions[split] = .split(split + 1, instructions.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumpsToEnd { instructions[jump] = .jump(instructions.count) }
        case .repetition(let item, let min, let max):
            for _ in 0..<min { try emit(item) }
            if let max {
                // e{0,k} as k nested optionals that all skip to the same exit.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(instructions.count)
                    try append(.split(-1, -1))
                    try emit(item)
                }
                for split in splits { instructions[split] = .split(split + 1, instructions.count) }
            } else {
                let loop = instructions.count
                try append(.split(-1, -1))
                try emit(item)
                try append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
    }

    /// Whether the program matches a substring of `text`.
    func search(_ text: String) -> Bool {
        var current = ThreadSet(capacity: instructions.count)
        var next = ThreadSet(capacity: instructions.count)
        var stack: [Int] = []
        stack.reserveCapacity(instructions.count)

        var iterator = text.unicodeScalars.makeIterator()
        var previous: Unicode.Scalar? = nil
        var scalar = iterator.next()
        var atStart = true
        while true {
            if atStart || !anchoredAtStart {
                if addThread(0, to: &current, stack: &stack, previous: previous, next: scalar) { return true }
            }
            atStart = false
            guard let consumed = scalar else { return false }
            let following = iterator.next()
            for index in 0..<current.count {
                let pc = current.dense[index]
                let advances: Bool
                switch instructions[pc] {
                case .set(let set): advances = set.contains(consumed)
                case .anyCharacter(let matchesNewline): advances = matchesNewline || consumed != "\n"
                default: advances = false
                }
                if advances, addThread(pc + 1, to: &next, stack: &stack, previous: consumed, next: following) {
                    return true
                }
            }
            if next.count == 0, anchoredAtStart { return false }
            swap(&current, &next)
            next.removeAll()
            previous = consumed
            scalar = following
        }
    }

    /// Adds `pc` and everything reachable from it without consuming input; true on a match.
    private func addThread(
        _ pc: Int, to set: inout ThreadSet, stack: inout [Int],
        previous: Unicode.Scalar?, next: Unicode.Scalar?
    ) -> Bool {
        stack.append(pc)
        while let pc = stack.popLast() {
            guard set.insert(pc) else { continue }
            switch instructions[pc] {
            case .match:
                stack.removeAll(keepingCapacity: true)
                return true
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assertion(let assertion):
                if holds(assertion, previous: previous, next: next) { stack.append(pc + 1) }
            case .set, .anyCharacter:
                break
            }
        }
        return false
    }

    private func holds(_ assertion: RegexAssertion, previous: Unicode.Scalar?, next: Unicode.Scalar?) -> Bool {
        switch assertion {
        case .beginText: return previous == nil
        case .endText: return next == nil
        case .beginLine: return previous == nil || previous == "\n"
        case .endLine: return next == nil || next == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = previous.map(RegexProgram.isWordCharacter) ?? false
            let after = next.map(RegexProgram.isWordCharacter) ?? false
            return (before != after) == (assertion == .wordBoundary)
        }
    }

    /// RE2's `\b` is ASCII-only.
    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        RegexCharSet.word.contains(scalar)
    }
}

/// A sparse set of instruction indexes with O(1) insert, membership and clear.
private struct ThreadSet {
    var dense: [Int]
    var sparse: [Int]
    var count = 0

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    /// Inserts `value`; false if it was already present.
    mutating func insert(_ value: Int) -> Bool {
        let slot = sparse[value]
        if slot < count, dense[slot] == value { return false }
        sparse[value] = count
        dense[count] = value
        count += 1
        return true
    }

    mutating func removeAll() { count = 0 }
}
