import ArgumentParser
import ConfigClient
import Foundation

/// `rcctl changes …`: change requests, approvals and scheduled publishes (docs/change-control.md).
struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Change requests: list, show, propose, edit, approve, reject, cancel, schedule, apply; and the approval policy.",
        subcommands: [
            ListChanges.self, ShowChange.self, ProposeChange.self, EditChange.self, ApproveChange.self, RejectChange.self,
            CancelChange.self, ScheduleChange.self, ApplyChange.self, ChangePolicyCommand.self,
        ],
        defaultSubcommand: ListChanges.self
    )
}

/// What every `changes` subcommand takes: the server and project, and which template.
struct ChangeOptions: ParsableArguments {
    @Option(help: "The template: firebase (client) or firebase-server.")
    var namespace = "firebase"

    @OptionGroup var global: TemplateOptions

    /// Sends one call and prints its answer: `--json` as is, else through `summary`.
    func run(_ call: (AdminClient) async throws(ConfigClientError) -> AdminClient.Response,
             summary: ([String: Any]) -> String) async throws {
        let client = global.adminClient()
        let response = try await checked { () async throws(ConfigClientError) in try await call(client) }
        if global.json { return Console.write(response.body) }
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        Console.out(summary(object))
    }

    /// One line for a change request.
    static func line(_ request: [String: Any]) -> String {
        let approvals = (request["approvals"] as? [Any])?.count ?? 0
        let needed = request["requiredApprovals"] as? Int ?? 0
        var fields = ["#\(request["id"] as? String ?? "?")", request["status"] as? String ?? "?",
                      "\(approvals)/\(needed) approvals", (request["author"] as? [String: Any])?["name"] as? String ?? "",
                      request["description"] as? String ?? ""]
        if let time = request["scheduleTime"] as? String { fields.append("at \(time)") }
        if let version = request["appliedVersion"] as? Int { fields.append("version \(version)") }
        if let conflict = request["conflictVersion"] as? Int { fields.append("conflicts with version \(conflict)") }
        return fields.joined(separator: "\t")
    }
}

struct ListChanges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the template's change requests, newest first.")

    @Option(help: "Only those in this status (open, approved, scheduled, applied, rejected, cancelled, conflicted).")
    var status: String?

    @OptionGroup var options: ChangeOptions

    func run() async throws {
        try await options.run({ client async throws(ConfigClientError) in
            try await client.changeRequests(namespace: options.namespace, status: status)
        }) { object in
            let requests = object["changeRequests"] as? [[String: Any]] ?? []
            return requests.isEmpty ? "No change requests." : requests.map(ChangeOptions.line).joined(separator: "\n")
        }
    }
}

struct ShowChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a change request and its diff (JSON).")

    @Argument(help: "The change request's id.")
    var id: String

    @OptionGroup var options: ChangeOptions

    func run() async throws {
        let client = options.global.adminClient()
        let response = try await checked { () async throws(ConfigClientError) in
            try await client.changeRequest(namespace: options.namespace, id: id)
        }
        Console.write(Console.prettyJSON(response.body))
    }
}

/// The body of a proposal: a template file or a rollback, with a description and a time.
struct ProposalOptions: ParsableArguments {
    @Argument(help: "Template JSON file to publish (`-` for standard input); leave out with --rollback.")
    var file: String?

    @Option(help: "Propose rolling back to this version instead.")
    var rollback: Int64?

    @Option(help: "What the change is for (recorded as the version's description).")
    var description: String?

    func body(scheduleTime: String? = nil) throws -> Data {
        guard (file == nil) != (rollback == nil) else { throw ValidationError("give a template FILE or --rollback VERSION") }
        var object: [String: Any] = [:]
        if let file {
            let data = try Console.read(file)
            object["template"] = try Console.readJSONObject(data, name: file)
        }
        if let rollback { object["rollbackTo"] = rollback }
        if let description { object["description"] = description }
        if let scheduleTime { object["scheduleTime"] = scheduleTime }
        return try JSONSerialization.data(withJSONObject: object)
    }
}

struct ProposeChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "propose",
        abstract: "Propose a publish (FILE) or a rollback (--rollback N); with --at, a publisher's publish scheduled for then.",
        discussion: "The proposal is based on the active version (or --etag); applying it later expects the template still there."
    )

    @OptionGroup var proposal: ProposalOptions

    @Option(help: "Publish at this time (RFC 3339), where no approval is required.")
    var at: String?

    @Option(help: "The ETag of the version the proposal is based on.")
    var etag: String?

    @OptionGroup var options: ChangeOptions

    func run() async throws {
        let body = try proposal.body(scheduleTime: at)
        try await options.run({ client async throws(ConfigClientError) in
            try await client.proposeChange(namespace: options.namespace, proposal: body, ifMatch: etag)
        }) { "Change request " + ChangeOptions.line($0) }
    }
}

struct EditChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Replace a change request's proposal (its approvals are cleared).")

    @Argument(help: "The change request's id.")
    var id: String

    @OptionGroup var proposal: ProposalOptions

    @OptionGroup var options: ChangeOptions

    func run() async throws {
        let body = try proposal.body()
        try await options.run({ client async throws(ConfigClientError) in
            try await client.editChange(namespace: options.namespace, id: id, proposal: body)
        }) { "Change request " + ChangeOptions.line($0) }
    }
}

/// A step on one change request, and what it prints.
struct ChangeStepArguments: ParsableArguments {
    @Argument(help: "The change request's id.")
    var id: String

    @Option(help: "What you say about it.")
    var comment: String?

    @OptionGroup var options: ChangeOptions

    func take(_ step: String, _ extra: [String: String] = [:]) async throws {
        var fields = extra
        if let comment { fields["comment"] = comment }
        try await options.run({ client async throws(ConfigClientError) in
            try await client.stepChange(namespace: options.namespace, id: id, step: step, fields: fields)
        }) { object in
            if step == "apply", let version = object["version"] as? [String: Any] {
                return "Applied change request #\(id): version \(version["versionNumber"] as? String ?? "?")"
            }
            return "Change request " + ChangeOptions.line(object)
        }
    }
}

struct ApproveChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "approve", abstract: "Approve a change request (a publisher).")
    @OptionGroup var step: ChangeStepArguments
    func run() async throws { try await step.take("approve") }
}

struct RejectChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reject", abstract: "Reject a change request (a publisher).")
    @OptionGroup var step: ChangeStepArguments
    func run() async throws { try await step.take("reject") }
}

struct CancelChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a change request (its author or an admin).")
    @OptionGroup var step: ChangeStepArguments
    func run() async throws { try await step.take("cancel") }
}

struct ScheduleChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule", abstract: "Schedule an approved change request for a time (a publisher).")
    @Option(help: "When (RFC 3339).")
    var at: String
    @OptionGroup var step: ChangeStepArguments
    func run() async throws { try await step.take("schedule", ["scheduleTime": at]) }
}

struct ApplyChange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply", abstract: "Apply an approved change request now (a publisher); --bypass: an admin's audited emergency.")
    @Flag(help: "Bypass the approvals (an admin's, audited).")
    var bypass = false
    @OptionGroup var step: ChangeStepArguments
    func run() async throws { try await step.take("apply", bypass ? ["bypassApproval": "true"] : [:]) }
}

struct ChangePolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show the template's approval policy, or set it (an admin's): --approvals N, --self-approval, --editors-publish."
    )

    @Option(help: "Distinct approvals a change needs (0: direct publishes, as in Firebase).")
    var approvals: Int?

    @Flag(help: "Authors may approve their own change requests.")
    var selfApproval = false

    @Flag(help: "Editors may publish directly (where no approval is required).")
    var editorsPublish = false

    @OptionGroup var options: ChangeOptions

    func run() async throws {
        let summary = { (object: [String: Any]) in
            "requiredApprovals \(object["requiredApprovals"] as? Int ?? 0), allowSelfApproval \(object["allowSelfApproval"] as? Bool ?? false), "
                + "editorsMayPublish \(object["editorsMayPublish"] as? Bool ?? false)"
        }
        guard let approvals else {
            return try await options.run({ client async throws(ConfigClientError) in
                try await client.changePolicy(namespace: options.namespace)
            }, summary: summary)
        }
        try await options.run({ client async throws(ConfigClientError) in
            try await client.setChangePolicy(namespace: options.namespace, requiredApprovals: approvals,
                                             allowSelfApproval: selfApproval, editorsMayPublish: editorsPublish)
        }, summary: summary)
    }
}
