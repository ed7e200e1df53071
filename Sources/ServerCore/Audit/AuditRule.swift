/// How the audit log names the calls of a route (docs/access.md, "Audit log"): the action, what
/// kind of call it is, and where its target is named. `AuditTrail` writes an entry from this
/// and the caller the exchange carries.
package struct AuditRule: Sendable {
    package enum Kind: Sendable {
        /// Kept only when refused.
        case read
        case change
        /// A change that makes a template version: its entry holds the version's number (from
        /// the answer's ETag) and its diff.
        case version
    }

    /// Where a part of the entry is named.
    package enum Name: Sendable {
        /// The path's parameters, joined by `/` (`{webhook}/{delivery}`).
        case parameters([String])
        /// A text member of the request's JSON body (an API key's `name`).
        case requestMember(String)
        /// A text member of the answer's JSON body (the id of what a create made; none for a
        /// refused call).
        case answerMember(String)
    }

    let kind: Kind
    let action: String
    /// The entry's target; nil for none.
    var target: Name?
    /// Where the project is named for a route whose path names none (a project's creation).
    package var project: Name?
    /// The action of a request when it depends on more than the route (nil: not kept).
    var refine: (@Sendable (Exchange, _ action: String) -> String?)?

    package init(kind: Kind, action: String, target: Name? = nil, project: Name? = nil,
                 refine: (@Sendable (Exchange, _ action: String) -> String?)? = nil) {
        self.kind = kind
        self.action = action
        self.target = target
        self.project = project
        self.refine = refine
    }

    package static func read(_ action: String, target: Name? = nil) -> AuditRule {
        AuditRule(kind: .read, action: action, target: target)
    }

    package static func change(_ action: String, target: Name? = nil) -> AuditRule {
        AuditRule(kind: .change, action: action, target: target)
    }

    package static func version(_ action: String) -> AuditRule {
        AuditRule(kind: .version, action: action)
    }

    /// The action `exchange`'s call is kept under; nil for a call not kept.
    func action(of exchange: Exchange) -> String? {
        refine.map { $0(exchange, action) } ?? action
    }
}
