import Foundation
import Synchronization

/// Real-time bookkeeping of a ``ConfigClient``, guarded by its `realtime` lock.
struct RealtimeState {
    /// The open stream and what has been read from it.
    struct ActiveStream {
        var connection: Int
        var handle: any StreamHandle
        var parser = InvalidationStreamParser()
        /// Set for a non-200 answer, whose body is the error message.
        var refusal: HTTPResponse?
    }

    var machine: RealtimeStateMachine
    var listeners: [Int: ConfigClient.UpdateListener] = [:]
    var lastListenerID = 0
    var stream: ActiveStream?
    var fetchRunning = false
    /// The highest version announced while a fetch was running (0: a poll is due).
    var pendingTarget: Int64?
}

/// Stops delivering config updates to one listener.
public final class ConfigUpdateListenerRegistration: Sendable {
    private let client: ConfigClient
    private let id: Int

    init(client: ConfigClient, id: Int) {
        self.client = client
        self.id = id
    }

    /// Removes the listener; removing the last one closes the real-time stream. Idempotent.
    public func remove() {
        client.removeListener(id: id)
    }
}

extension ConfigClient {
    /// Called with the keys that changed, or with a ``ConfigUpdateError``.
    public typealias UpdateListener = @Sendable (ConfigUpdate?, (any Error)?) -> Void

    /// Attempts per announced version before listeners hear `announcedVersionNotFetched`.
    static let autoFetchAttempts = 3
    /// Longest error body kept from a refused stream.
    static let refusalBodyLimit = 4096

    /// Registers `listener` for config updates. The first listener opens the real-time stream;
    /// later ones share it. When the server announces a version newer than the last fetched
    /// one, the client fetches at once (ignoring the minimum fetch interval) and calls the
    /// listeners with the keys that differ from the active config — not at all when none do.
    /// The new values are fetched, not active: call ``activate()`` in the listener to use them.
    /// Listeners run on a background queue, one call at a time.
    /// - Returns: the registration that removes the listener.
    public func addOnConfigUpdateListener(_ listener: @escaping UpdateListener) -> ConfigUpdateListenerRegistration {
        var id = 0
        handleRealtime { realtime, _ in
            realtime.lastListenerID += 1
            id = realtime.lastListenerID
            realtime.listeners[id] = listener
            return realtime.listeners.count == 1 ? realtime.machine.start() : []
        }
        return ConfigUpdateListenerRegistration(client: self, id: id)
    }

    func removeListener(id: Int) {
        handleRealtime { realtime, _ in
            guard realtime.listeners.removeValue(forKey: id) != nil, realtime.listeners.isEmpty else { return [] }
            return realtime.machine.stop()
        }
    }

    /// Feeds one event to the state machine and runs its actions: stream and timer actions
    /// under the lock (so a `stop` cannot overtake a `connect`), fetches and reports after it.
    private func handleRealtime(_ event: (inout RealtimeState, TimeInterval) -> [RealtimeStateMachine.Action]) {
        let deferred = realtime.withLock { realtime in
            perform(event(&realtime, ProcessInfo.processInfo.systemUptime), in: &realtime)
        }
        for action in deferred {
            switch action {
            case .fetch(let target): startFetch(target: target ?? 0)
            case .report(let error): notify(nil, error)
            default: break
            }
        }
    }

    private func perform(_ actions: [RealtimeStateMachine.Action], in realtime: inout RealtimeState) -> [RealtimeStateMachine.Action] {
        var deferred: [RealtimeStateMachine.Action] = []
        for action in actions {
            switch action {
            case .connect(let connection):
                let (version, etag) = state.withLock { ($0.fetched?.templateVersion ?? 0, $0.fetched?.etag) }
                let request = requests.streamInvalidations(lastKnownVersion: version, etag: etag)
                let handle = transport.stream(request) { [weak self] event in
                    self?.streamEvent(event, connection: connection)
                }
                realtime.stream = RealtimeState.ActiveStream(connection: connection, handle: handle)
            case .disconnect(let connection):
                if let stream = realtime.stream, stream.connection == connection {
                    stream.handle.cancel()
                    realtime.stream = nil
                }
            case .scheduleReconnect(let delay, let timer):
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
                    self?.handleRealtime { realtime, _ in realtime.machine.reconnectTimerFired(timer: timer) }
                }
            case .schedulePoll(let delay, let timer):
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
                    self?.handleRealtime { realtime, _ in realtime.machine.pollTimerFired(timer: timer) }
                }
            case .fetch, .report:
                deferred.append(action)
            }
        }
        return deferred
    }

    private func streamEvent(_ event: StreamEvent, connection: Int) {
        let knownVersion = fetchedTemplateVersion
        handleRealtime { realtime, now in
            guard var stream = realtime.stream, stream.connection == connection else { return [] }
            switch event {
            case .head(let status, let headers):
                if status != 200 { stream.refusal = HTTPResponse(status: status, headers: headers) }
                realtime.stream = stream
                return realtime.machine.responseReceived(connection: connection, status: status, now: now)
            case .data(let data):
                if var refusal = stream.refusal {
                    refusal.body.append(data.prefix(Self.refusalBodyLimit - refusal.body.count))
                    stream.refusal = refusal
                    realtime.stream = stream
                    return []
                }
                let messages: [InvalidationMessage]
                do throws(InvalidationStreamError) {
                    messages = try stream.parser.append(data)
                } catch {
                    stream.handle.cancel()
                    realtime.stream = nil
                    return realtime.machine.streamEnded(connection: connection, .invalid(error), now: now)
                }
                realtime.stream = stream
                return messages.flatMap { realtime.machine.messageReceived(connection: connection, $0, knownVersion: knownVersion) }
            case .end(let error):
                realtime.stream = nil
                let end: RealtimeStateMachine.StreamEnd
                if let refusal = stream.refusal {
                    let retryAfter = refusal.header("retry-after").flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
                    end = .refused(ServerError(response: refusal), retryAfter: retryAfter)
                } else if let error {
                    end = .failed(error)
                } else {
                    end = .closed
                }
                return realtime.machine.streamEnded(connection: connection, end, now: now)
            }
        }
    }

    /// Runs one fetch at a time; versions announced meanwhile are fetched afterwards.
    /// - Parameter target: the announced version, or 0 for a periodic poll.
    private func startFetch(target: Int64) {
        let start = realtime.withLock { realtime in
            guard !realtime.fetchRunning else {
                realtime.pendingTarget = max(realtime.pendingTarget ?? 0, target)
                return false
            }
            realtime.fetchRunning = true
            return true
        }
        guard start else { return }
        Task { [weak self] in
            var next: Int64? = target
            while let target = next, let client = self {
                await client.fetchForUpdate(target: target)
                next = client.realtime.withLock { realtime in
                    defer { realtime.pendingTarget = nil }
                    if realtime.pendingTarget == nil { realtime.fetchRunning = false }
                    return realtime.pendingTarget
                }
            }
        }
    }

    /// Fetches until the announced `target` version arrives (up to three attempts, as the
    /// Firebase SDKs do) and tells listeners what changed.
    private func fetchForUpdate(target: Int64) async {
        if target > 0, fetchedTemplateVersion >= target { return }
        var fetchedVersion: Int64 = 0
        for attempt in 1...Self.autoFetchAttempts {
            if attempt > 1 {
                // The announcing server may not serve the new version yet; give it time.
                try? await Task.sleep(for: .seconds(attempt - 1))
            }
            do {
                let outcome = try await fetchNow(type: target > 0 ? .realtime(attempt: attempt) : .base)
                if !outcome.updatedKeys.isEmpty { notify(ConfigUpdate(updatedKeys: outcome.updatedKeys), nil) }
                fetchedVersion = outcome.templateVersion
                if fetchedVersion >= target { return }
            } catch {
                // A failed poll stays quiet: the stream reports its own failures.
                if target == 0 { return }
                if attempt == Self.autoFetchAttempts { return notify(nil, .fetchFailed(error)) }
            }
        }
        notify(nil, .announcedVersionNotFetched(announced: target, fetched: fetchedVersion))
    }

    private func notify(_ update: ConfigUpdate?, _ error: ConfigUpdateError?) {
        let listeners = realtime.withLock { $0.listeners.sorted { $0.key < $1.key }.map(\.value) }
        listenerQueue.async {
            for listener in listeners { listener(update, error) }
        }
    }
}
