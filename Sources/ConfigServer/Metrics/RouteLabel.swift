/// The `route` label of the request metrics: a route's name without its ids, one of a fixed
/// set (an unknown custom method or step is `…:unknown`, so clients cannot grow the set).
/// Each is a small integer, so a request is counted in an array slot instead of under its
/// name in a dictionary (hashing the name cost more than the rest of the count).
enum RouteLabel: Int, CaseIterable {
    case healthz, readyz, metrics, openapi, projects, apiKeys, principals, auditLog, me, tokens, sessions, members
    case webhooks, webhookDeliveries, serverRemoteConfig, fetch, streamFetchInvalidations, console, changePolicy
    case remoteConfig, remoteConfigListVersions, remoteConfigRollback, remoteConfigDiff, remoteConfigEvaluate
    case remoteConfigAdoption, remoteConfigDownloadDefaults, remoteConfigCanary, remoteConfigPromote, remoteConfigAbort
    case remoteConfigUnknown
    case ofrepEvaluateFlags, ofrepEvaluateFlag, ofrepEventStream
    case authLogin, authCallback, authSession, authSignOut
    case changeRequests, changeRequest, changeRequestApprove, changeRequestReject, changeRequestCancel
    case changeRequestSchedule, changeRequestApply, changeRequestUnknown
    /// A path that names no route.
    case unknown

    /// The label as `/metrics` shows it.
    var name: String {
        switch self {
        case .healthz: "healthz"
        case .readyz: "readyz"
        case .metrics: "metrics"
        case .openapi: "openapi"
        case .projects: "projects"
        case .apiKeys: "apiKeys"
        case .principals: "principals"
        case .auditLog: "auditLog"
        case .me: "me"
        case .tokens: "tokens"
        case .sessions: "sessions"
        case .members: "members"
        case .webhooks: "webhooks"
        case .webhookDeliveries: "webhookDeliveries"
        case .serverRemoteConfig: "serverRemoteConfig"
        case .fetch: "fetch"
        case .streamFetchInvalidations: "streamFetchInvalidations"
        case .console: "console"
        case .changePolicy: "changePolicy"
        case .remoteConfig: "remoteConfig"
        case .remoteConfigListVersions: "remoteConfig:listVersions"
        case .remoteConfigRollback: "remoteConfig:rollback"
        case .remoteConfigDiff: "remoteConfig:diff"
        case .remoteConfigEvaluate: "remoteConfig:evaluate"
        case .remoteConfigAdoption: "remoteConfig:adoption"
        case .remoteConfigDownloadDefaults: "remoteConfig:downloadDefaults"
        case .remoteConfigCanary: "remoteConfig:canary"
        case .remoteConfigPromote: "remoteConfig:promote"
        case .remoteConfigAbort: "remoteConfig:abort"
        case .remoteConfigUnknown: "remoteConfig:unknown"
        case .ofrepEvaluateFlags: "ofrep:evaluateFlags"
        case .ofrepEvaluateFlag: "ofrep:evaluateFlag"
        case .ofrepEventStream: "ofrep:eventStream"
        case .authLogin: "auth:login"
        case .authCallback: "auth:callback"
        case .authSession: "auth:session"
        case .authSignOut: "auth:signOut"
        case .changeRequests: "changeRequests"
        case .changeRequest: "changeRequest"
        case .changeRequestApprove: "changeRequest:approve"
        case .changeRequestReject: "changeRequest:reject"
        case .changeRequestCancel: "changeRequest:cancel"
        case .changeRequestSchedule: "changeRequest:schedule"
        case .changeRequestApply: "changeRequest:apply"
        case .changeRequestUnknown: "changeRequest:unknown"
        case .unknown: "unknown"
        }
    }

    /// The label of `route` (borrowed: an initializer's parameter is otherwise a copy, a
    /// retain of each of the route's strings).
    init(_ route: borrowing Route) {
        switch route {
        case .health: self = .healthz
        case .ready: self = .readyz
        case .metrics: self = .metrics
        case .openAPI: self = .openapi
        case .projects: self = .projects
        case .apiKeys: self = .apiKeys
        case .principals: self = .principals
        case .audit: self = .auditLog
        case .me: self = .me
        case .tokens: self = .tokens
        case .sessions: self = .sessions
        case .members: self = .members
        case .webhooks: self = .webhooks
        case .webhookDeliveries: self = .webhookDeliveries
        case .template(_, _, nil): self = .remoteConfig
        case .template(_, _, let method?): self = TemplateMethod(rawValue: method).map(Self.init) ?? .remoteConfigUnknown
        case .serverTemplate: self = .serverRemoteConfig
        case .fetch: self = .fetch
        case .stream: self = .streamFetchInvalidations
        case .ofrepEvaluation(nil): self = .ofrepEvaluateFlags
        case .ofrepEvaluation: self = .ofrepEvaluateFlag
        case .ofrepEventStream: self = .ofrepEventStream
        case .console: self = .console
        case .signIn(let step): self = Self(step)
        case .changePolicy: self = .changePolicy
        case .changeRequests(_, _, nil, _): self = .changeRequests
        case .changeRequests(_, _, _, nil): self = .changeRequest
        case .changeRequests(_, _, _, let step?): self = ChangeStep(rawValue: step).map(Self.init) ?? .changeRequestUnknown
        }
    }

    private init(_ method: TemplateMethod) {
        switch method {
        case .listVersions: self = .remoteConfigListVersions
        case .rollback: self = .remoteConfigRollback
        case .diff: self = .remoteConfigDiff
        case .evaluate: self = .remoteConfigEvaluate
        case .adoption: self = .remoteConfigAdoption
        case .downloadDefaults: self = .remoteConfigDownloadDefaults
        case .canary: self = .remoteConfigCanary
        case .promote: self = .remoteConfigPromote
        case .abort: self = .remoteConfigAbort
        }
    }

    private init(_ step: SignInStep) {
        switch step {
        case .login: self = .authLogin
        case .callback: self = .authCallback
        case .session: self = .authSession
        case .signOut: self = .authSignOut
        }
    }

    private init(_ step: ChangeStep) {
        switch step {
        case .approve: self = .changeRequestApprove
        case .reject: self = .changeRequestReject
        case .cancel: self = .changeRequestCancel
        case .schedule: self = .changeRequestSchedule
        case .apply: self = .changeRequestApply
        }
    }
}
