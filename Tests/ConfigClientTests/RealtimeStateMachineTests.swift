import Testing
@testable import ConfigClient
import TestSupport

@Suite struct RealtimeStateMachineTests {
    typealias Machine = RealtimeStateMachine

    private func machine() -> Machine {
        Machine(backoff: Backoff(initial: 1, maximum: 60, jitter: 0), pollInterval: 30, random: SplitMix64(seed: 1))
    }

    /// A machine with an open 200 stream as connection 1.
    private func connected() -> Machine {
        var machine = machine()
        #expect(machine.start() == [.connect(connection: 1)])
        #expect(machine.responseReceived(connection: 1, status: 200, now: 0).isEmpty)
        return machine
    }

    private let forbidden = ServerError(httpStatus: 403, status: "PERMISSION_DENIED", message: "no")

    @Test func firstStartConnectsLaterStartsDoNot() {
        var machine = connected()
        #expect(machine.start().isEmpty)
        #expect(machine.phase == .connected(connection: 1, since: 0))
    }

    @Test func newerVersionTriggersAFetchOlderDoesNot() {
        var machine = connected()
        #expect(machine.messageReceived(connection: 1, InvalidationMessage(latestTemplateVersionNumber: 5), knownVersion: 4) == [.fetch(targetVersion: 5)])
        #expect(machine.messageReceived(connection: 1, InvalidationMessage(latestTemplateVersionNumber: 4), knownVersion: 4).isEmpty)
        #expect(machine.messageReceived(connection: 1, InvalidationMessage(), knownVersion: 4).isEmpty)
    }

    @Test func cleanEndAfterAMessageReconnectsAtOnce() {
        var machine = connected()
        _ = machine.messageReceived(connection: 1, InvalidationMessage(latestTemplateVersionNumber: 1), knownVersion: 1)
        #expect(machine.streamEnded(connection: 1, .closed, now: 1) == [.connect(connection: 2)])
    }

    @Test func longQuietStreamIsHealthyQuickQuietEndBacksOff() {
        var machine = connected()
        #expect(machine.streamEnded(connection: 1, .closed, now: 300) == [.connect(connection: 2)])
        _ = machine.responseReceived(connection: 2, status: 200, now: 300)
        #expect(machine.streamEnded(connection: 2, .closed, now: 301) == [
            .schedulePoll(after: 30, timer: 3), .scheduleReconnect(after: 1, timer: 4),
        ])
    }

    @Test func retryIntervalIsHonouredWithoutCountingAFailure() {
        var machine = connected()
        let message = InvalidationMessage(latestTemplateVersionNumber: 9, retryIntervalSeconds: 45)
        #expect(machine.messageReceived(connection: 1, message, knownVersion: 3) == [.fetch(targetVersion: 9)])
        #expect(machine.streamEnded(connection: 1, .closed, now: 1) == [.scheduleReconnect(after: 45, timer: 2)])
        #expect(machine.failures == 0)
        #expect(machine.reconnectTimerFired(timer: 2) == [.connect(connection: 3)])
    }

    /// At the stream cap the server answers a client that is up to date with its version and a
    /// retry interval, then ends the stream: each time the client waits exactly that long,
    /// without polling, reporting, or growing a back-off.
    @Test func upToDateClientAtTheCapWaitsTheRetryIntervalEveryTime() {
        var machine = machine()
        var connection = 1
        #expect(machine.start() == [.connect(connection: connection)])
        for _ in 0..<3 {
            #expect(machine.responseReceived(connection: connection, status: 200, now: 0).isEmpty)
            let atTheCap = InvalidationMessage(latestTemplateVersionNumber: 4, retryIntervalSeconds: 60)
            #expect(machine.messageReceived(connection: connection, atTheCap, knownVersion: 4).isEmpty)
            let timer = connection + 1
            #expect(machine.streamEnded(connection: connection, .closed, now: 0) == [.scheduleReconnect(after: 60, timer: timer)])
            #expect(machine.failures == 0)
            connection = timer + 1
            #expect(machine.reconnectTimerFired(timer: timer) == [.connect(connection: connection)])
        }
    }

    @Test func retryableRefusalsBackOffExponentiallyAndPollQuietly() {
        var machine = connected()
        _ = machine.streamEnded(connection: 1, .failed(TransportError(.failed, "reset")), now: 20)
        var delays: [Double] = []
        var connection = 1
        var lastTimer = 0
        for _ in 0..<4 {
            let actions = machine.reconnectTimerFired(timer: lastTimer == 0 ? 3 : lastTimer)
            guard case .connect(let next)? = actions.first else { Issue.record("no reconnect: \(actions)"); return }
            connection = next
            let refused = ServerError(httpStatus: 503, status: "UNAVAILABLE", message: "busy")
            for action in machine.streamEnded(connection: connection, .refused(refused, retryAfter: nil), now: 20) {
                switch action {
                case .scheduleReconnect(let delay, let timer): delays.append(delay); lastTimer = timer
                case .report: Issue.record("503 must not be reported")
                case .schedulePoll: Issue.record("polling was already scheduled")
                default: break
                }
            }
        }
        #expect(delays == [2, 4, 8, 16])
    }

    @Test func firstFailureStartsPolling() {
        var machine = connected()
        let actions = machine.streamEnded(connection: 1, .failed(TransportError(.failed, "reset")), now: 20)
        #expect(actions == [.schedulePoll(after: 30, timer: 2), .scheduleReconnect(after: 1, timer: 3)])
        #expect(machine.pollTimerFired(timer: 2) == [.fetch(targetVersion: nil), .schedulePoll(after: 30, timer: 4)])
        // A stale timer does nothing.
        #expect(machine.pollTimerFired(timer: 2).isEmpty)
    }

    @Test func successfulReconnectStopsPolling() {
        var machine = connected()
        _ = machine.streamEnded(connection: 1, .failed(TransportError(.failed, "reset")), now: 20)
        #expect(machine.reconnectTimerFired(timer: 3) == [.connect(connection: 4)])
        _ = machine.responseReceived(connection: 4, status: 200, now: 21)
        #expect(machine.pollTimerFired(timer: 2).isEmpty)
        #expect(machine.failures == 0)
    }

    @Test func forbiddenIsReportedOnceAndRetriedWithBackoff() {
        var machine = machine()
        _ = machine.start()
        _ = machine.responseReceived(connection: 1, status: 403, now: 0)
        #expect(machine.streamEnded(connection: 1, .refused(forbidden, retryAfter: nil), now: 0) == [
            .report(.streamRefused(forbidden)), .schedulePoll(after: 30, timer: 2), .scheduleReconnect(after: 1, timer: 3),
        ])
        _ = machine.reconnectTimerFired(timer: 3)
        #expect(machine.streamEnded(connection: 4, .refused(forbidden, retryAfter: nil), now: 1) == [.scheduleReconnect(after: 2, timer: 5)])
    }

    @Test func retryAfterHeaderStretchesTheDelay() {
        var machine = machine()
        _ = machine.start()
        let busy = ServerError(httpStatus: 429, status: "RESOURCE_EXHAUSTED", message: "later")
        #expect(machine.streamEnded(connection: 1, .refused(busy, retryAfter: 120), now: 0).last == .scheduleReconnect(after: 120, timer: 3))
    }

    @Test func networkFailuresAreReportedAfterThreeInARow() {
        var machine = machine()
        _ = machine.start()
        let error = TransportError(.connectionFailed, "refused")
        var reports = 0
        var connection = 1
        for _ in 0..<5 {
            let actions = machine.streamEnded(connection: connection, .failed(error), now: 0)
            reports += actions.filter { $0 == .report(.streamUnavailable(error)) }.count
            guard case .scheduleReconnect(_, let timer)? = actions.last, case .connect(let next)? = machine.reconnectTimerFired(timer: timer).first else {
                Issue.record("no reconnect after \(actions)")
                return
            }
            connection = next
            if reports == 0 { #expect(machine.failures < 3) }
        }
        #expect(reports == 1)
    }

    @Test func featureDisabledStopsReconnectingButKeepsPolling() {
        var machine = connected()
        let actions = machine.messageReceived(connection: 1, InvalidationMessage(featureDisabled: true), knownVersion: 0)
        #expect(actions == [.disconnect(connection: 1), .report(.realtimeDisabled), .schedulePoll(after: 30, timer: 2)])
        #expect(machine.streamEnded(connection: 1, .failed(TransportError(.cancelled, "cancelled")), now: 1).isEmpty)
        #expect(machine.phase == .disabled)
        #expect(machine.pollTimerFired(timer: 2).first == .fetch(targetVersion: nil))
    }

    @Test func stopClosesTheStreamAndIgnoresLateEvents() {
        var machine = connected()
        #expect(machine.stop() == [.disconnect(connection: 1)])
        #expect(machine.messageReceived(connection: 1, InvalidationMessage(latestTemplateVersionNumber: 9), knownVersion: 0).isEmpty)
        #expect(machine.streamEnded(connection: 1, .closed, now: 5).isEmpty)
        #expect(machine.start() == [.connect(connection: 2)])
    }

    @Test func stopWhileWaitingCancelsTheTimers() {
        var machine = connected()
        _ = machine.streamEnded(connection: 1, .failed(TransportError(.failed, "reset")), now: 20)
        #expect(machine.stop().isEmpty)
        #expect(machine.reconnectTimerFired(timer: 3).isEmpty)
        #expect(machine.pollTimerFired(timer: 2).isEmpty)
    }

    @Test func invalidStreamIsReported() {
        var machine = connected()
        let error = InvalidationStreamError(offset: 0, message: "bad")
        #expect(machine.streamEnded(connection: 1, .invalid(error), now: 1).first == .report(.invalidStream(error)))
    }
}
