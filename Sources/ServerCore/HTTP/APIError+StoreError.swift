package import ConfigStore

extension APIError {
    /// The one mapping of a store failure to what the client is told.
    /// - Parameters:
    ///   - project: the project the request named, for the messages Firebase words with it.
    ///   - expectedVersion: the version `If-Match` named, when the request had one.
    package init(_ error: StoreError, project: StoredProject? = nil, expectedVersion: Int64? = nil) {
        let number = project?.number ?? "?"
        let id = project?.id ?? "?"
        switch error {
        case .versionMismatch(let current):
            let expected = expectedVersion.map { "version \($0)" } ?? "the active version"
            self.init(400, "[VERSION_MISMATCH]: Expected \(expected), found \(current) for project: \(number)",
                      canonicalStatus: "FAILED_PRECONDITION")
        case .canaryMismatch(let current):
            self.init(400, "[VERSION_MISMATCH]: The running canary is version \(current) for project: \(number)",
                      canonicalStatus: "FAILED_PRECONDITION")
        case .canaryRunning(let version):
            self.init(400, "[CANARY_RUNNING]: Version \(version) is being published to a share of the instances; promote or abort it first.",
                      canonicalStatus: "FAILED_PRECONDITION")
        case .noCanary:
            self = .notFound("No canary is running for project '\(id)'.")
        case .versionNotFound(let version):
            self = .notFound("Version \(version) of project '\(id)' not found (never published or no longer retained).")
        case .projectNotFound(let missing):
            self = .notFound("Project '\(missing)' not found.")
        case .environmentNotFound(let project, let environment):
            self = .notFound("Environment '\(environment)' of project '\(project)' not found.")
        case .environmentExists(let project, let environment):
            self.init(409, "Project '\(project)' already has an environment '\(environment)'.", canonicalStatus: "ALREADY_EXISTS")
        case .environmentInUse:
            self.init(400, "[ENVIRONMENT_IN_USE]: The \(error.description).", canonicalStatus: "FAILED_PRECONDITION")
        case .projectNumberTaken(let taken, let owner):
            self.init(409, "Project number \(taken) already in use by '\(owner)'.")
        case .rollbackTargetNotOlder, .invalidPageToken, .invalidArgument:
            self = .badRequest(error.description)
        case .changeRequestMoved(let id):
            self.init(409, "Change request \(id) changed meanwhile (approved, edited, applied or cancelled): read it again.",
                      canonicalStatus: "ABORTED")
        case .unavailable:
            // The engine's words stay in the log: they may name hosts and files.
            self.init(503, "The template store is unavailable; try again shortly. Fetches and streams keep being served.")
        case .outOfSpace:
            self.init(507, "[OUT_OF_SPACE]: The server's disk is full, so the change was not saved (nothing of it was written). "
                + "Fetches and streams keep being served; try again once space is freed.", canonicalStatus: "RESOURCE_EXHAUSTED")
        case .outcomeUnknown:
            self.init(503, "[OUTCOME_UNKNOWN]: The template store stopped answering after it was asked to commit the change, "
                + "which may or may not have been applied; the server will not retry it. Read the template's versions "
                + "before trying again.")
        }
    }
}
