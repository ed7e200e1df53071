import ConfigStore
import Synchronization

/// The projects this server knows, found by id or number (spec §0: every path accepts both).
final class ProjectDirectory: Sendable {
    private let byName = Mutex<[String: StoredProject]>([:])

    func replaceAll(_ projects: [StoredProject]) {
        byName.withLock { table in
            table = [:]
            for project in projects {
                table[project.id] = project
                table[project.number] = project
            }
        }
    }

    func add(_ project: StoredProject) {
        byName.withLock { table in
            table[project.id] = project
            table[project.number] = project
        }
    }

    /// The project named by an id or a number.
    func project(_ idOrNumber: String) -> StoredProject? {
        byName.withLock { $0[idOrNumber] }
    }

    var all: [StoredProject] {
        byName.withLock { table in Array(Set(table.values)).sorted { $0.id < $1.id } }
    }
}
