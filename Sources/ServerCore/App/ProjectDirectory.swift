package import ConfigStore
import Synchronization

/// The projects this server knows, found by id or number (spec §0: every path accepts both),
/// and their environments.
package final class ProjectDirectory: Sendable {
    private let byName = Mutex<[String: StoredProject]>([:])
    /// Each project's environments by project id, in order.
    private let environmentsByProject = Mutex<[String: [StoredEnvironment]]>([:])

    package init() {}

    func replaceAll(_ projects: [StoredProject], environments: [String: [StoredEnvironment]] = [:]) {
        byName.withLock { table in
            table = [:]
            for project in projects {
                table[project.id] = project
                table[project.number] = project
            }
        }
        environmentsByProject.withLock { $0 = environments }
    }

    /// The environments of `project` (its id), in the order a change moves through them;
    /// production alone for a project the store has given none yet.
    package func environments(of project: String) -> [StoredEnvironment] {
        environmentsByProject.withLock { $0[project] } ?? []
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
