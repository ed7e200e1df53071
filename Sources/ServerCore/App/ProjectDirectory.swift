package import ConfigStore
import Synchronization

/// The projects this server knows, found by id or number (spec §0: every path accepts both).
package final class ProjectDirectory: Sendable {
    private let byName = Mutex<[String: StoredProject]>([:])

    package init() {}

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
    package func project(_ idOrNumber: String) -> StoredProject? {
        byName.withLock { $0[idOrNumber] }
    }

    package var all: [StoredProject] {
        byName.withLock { table in Array(Set(table.values)).sorted { $0.id < $1.id } }
    }
}
