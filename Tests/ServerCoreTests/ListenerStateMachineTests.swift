import ConfigCore
@testable import ServerCore
import ConfigStore
import Testing

/// The node listener's decisions, on a manual clock (milliseconds) and without a server.
@Suite struct ListenerStateMachineTests {
    typealias Machine = ListenerStateMachine
    let a = TemplateKey(project: "a", namespace: .client)
    let b = TemplateKey(project: "b", namespace: .server)

    /// A machine that connected at `now` with `heads`, its catch-up taken.
    func listening(known: [TemplateKey: Int64] = [:], heads: [TemplateKey: Int64] = [:], at now: Int64 = 0) -> Machine {
        var machine = Machine(knownHeads: known, heartbeatMillis: 10_000)
        _ = machine.start()
        _ = machine.connected(heads: heads, now: now)
        return machine
    }

    @Test func startConnectsOnceAndCatchesUpOnWhatMovedThenTheControlPlane() {
        var machine = Machine(knownHeads: [a: 3, b: 7], heartbeatMillis: 10_000)
        #expect(machine.start() == [.connect])
        #expect(machine.start() == [], "a second start does nothing")
        let actions = machine.connected(heads: [a: 5, b: 7, TemplateKey(project: "c", namespace: .client): 1], now: 100)
        #expect(actions == [.relayAndAcknowledge([
            .template(a, version: 5), .template(TemplateKey(project: "c", namespace: .client), version: 1), .projects, .access,
        ])])
        #expect(machine.state == .listening(heartbeatDue: 2_100, heartbeatSentAt: nil))
        #expect(machine.knownHeads[a] == 5)
    }

    @Test func whatItIsToldIsRelayedThenAcknowledgedAndRemembered() {
        var machine = listening(known: [a: 1], heads: [a: 1])
        #expect(machine.received([], heartbeatAnswered: true, now: 5) == [], "a heartbeat's answer relays nothing")
        #expect(machine.received([.template(a, version: 4), .projects], heartbeatAnswered: true, now: 6)
            == [.relayAndAcknowledge([.template(a, version: 4), .projects])])
        #expect(machine.knownHeads[a] == 4)
        // An older notification delivered late never lowers what is known.
        _ = machine.received([.template(a, version: 2)], heartbeatAnswered: true, now: 7)
        #expect(machine.knownHeads[a] == 4)
    }

    @Test func aHeartbeatGoesAnIntervalAfterConnectingAndAnAnswerClearsIt() {
        var machine = listening(at: 0)
        #expect(machine.nextDeadline == 2_000)
        #expect(machine.tick(now: 1_999) == [])
        #expect(machine.tick(now: 2_000) == [.sendHeartbeat])
        #expect(machine.tick(now: 4_001) == [], "one heartbeat at a time")
        #expect(machine.nextDeadline == 12_000, "the answer may take the heartbeat time-out")
        _ = machine.received([], heartbeatAnswered: true, now: 4_050)
        #expect(machine.state == .listening(heartbeatDue: 4_000, heartbeatSentAt: nil))
        #expect(machine.nextDeadline == 4_000, "a late answer lets the next heartbeat go at once")
        #expect(machine.tick(now: 4_050) == [.sendHeartbeat])
    }

    /// The store counts a listener as alive only while its heartbeats are recent: notifications
    /// and acknowledgements do not put one off.
    @Test func aHeartbeatGoesEveryIntervalWhateverTheTraffic() {
        var machine = listening(at: 0)
        _ = machine.received([.projects], heartbeatAnswered: true, now: 1_500)
        #expect(machine.nextDeadline == 2_000)
        #expect(machine.tick(now: 2_000) == [.sendHeartbeat])
        _ = machine.received([], heartbeatAnswered: true, now: 2_030)
        _ = machine.received([.projects], heartbeatAnswered: true, now: 3_900)
        #expect(machine.tick(now: 3_999) == [])
        #expect(machine.tick(now: 4_000) == [.sendHeartbeat])
    }

    @Test func trafficThatIsNotTheAnswerKeepsTheHeartbeatWaiting() {
        var machine = listening(at: 0)
        _ = machine.tick(now: 2_000)
        _ = machine.received([.projects], heartbeatAnswered: false, now: 3_000)
        #expect(machine.state == .listening(heartbeatDue: 4_000, heartbeatSentAt: 2_000))
        #expect(machine.tick(now: 11_999) == [])
        #expect(machine.tick(now: 12_000).first == .drop(reason: "no answer to a heartbeat in 10000 ms"))
    }

    @Test func anUnansweredHeartbeatDropsAndReconnectsAtOnce() {
        var machine = listening(at: 0)
        _ = machine.tick(now: 2_000)
        #expect(machine.tick(now: 12_000) == [.drop(reason: "no answer to a heartbeat in 10000 ms"), .connect])
        #expect(machine.state == .connecting)
    }

    @Test func failedConnectsBackOffOneTwoFourThenEightSecondsAtMost() {
        var machine = Machine(knownHeads: [:], heartbeatMillis: 10_000)
        _ = machine.start()
        #expect(machine.connectFailed(now: 0) == [.connect], "the first retry is at once")
        var now: Int64 = 0
        for expected: Int64 in [1_000, 2_000, 4_000, 8_000, 8_000] {
            #expect(machine.connectFailed(now: now) == [])
            #expect(machine.state == .backingOff(until: now + expected))
            #expect(machine.nextDeadline == now + expected)
            #expect(machine.tick(now: now + expected - 1) == [])
            now += expected
            #expect(machine.tick(now: now) == [.connect])
        }
    }

    @Test func aConnectionThatWorksAgainResetsTheBackOff() {
        var machine = Machine(knownHeads: [:], heartbeatMillis: 10_000)
        _ = machine.start()
        _ = machine.connectFailed(now: 0)
        _ = machine.connectFailed(now: 0)
        _ = machine.tick(now: 1_000)
        _ = machine.connected(heads: [:], now: 1_000)
        #expect(machine.retryDelayMillis == 2_000, "connected is not yet working: the node has not caught up")
        machine.acknowledged()
        #expect(machine.retryDelayMillis == 0)
        #expect(machine.failed(reason: "reset by peer", now: 2_000) == [.drop(reason: "reset by peer"), .connect])
    }

    /// A node too slow to catch up connects, fails to acknowledge and drops, again and again:
    /// each attempt makes the other nodes' writers wait for it, so the attempts back off.
    @Test func aConnectionWhoseNodeNeverCatchesUpKeepsBackingOff() {
        var machine = Machine(knownHeads: [:], heartbeatMillis: 10_000)
        _ = machine.start()
        var now: Int64 = 0
        _ = machine.connected(heads: [:], now: now)
        #expect(machine.failed(reason: "workers behind", now: now) == [.drop(reason: "workers behind"), .connect])
        for expected: Int64 in [1_000, 2_000, 4_000] {
            _ = machine.connected(heads: [:], now: now)
            #expect(machine.failed(reason: "workers behind", now: now) == [.drop(reason: "workers behind")])
            #expect(machine.state == .backingOff(until: now + expected))
            now += expected
            #expect(machine.tick(now: now) == [.connect])
        }
    }

    @Test func aReconnectRelaysOnlyWhatWasMissedWhileDown() {
        var machine = listening(known: [a: 1], heads: [a: 1])
        _ = machine.received([.template(a, version: 2)], heartbeatAnswered: true, now: 1)
        _ = machine.failed(reason: "lost", now: 2)
        #expect(machine.connected(heads: [a: 2, b: 1], now: 3) == [.relayAndAcknowledge([.template(b, version: 1), .projects, .access])])
    }

    @Test func stoppingClosesAnOpenConnectionAndEndsEverything() {
        var machine = listening()
        #expect(machine.stop() == [.close])
        #expect(machine.tick(now: 1_000_000) == [])
        #expect(machine.nextDeadline == nil)
        #expect(machine.received([.projects], heartbeatAnswered: true, now: 1) == [])
        var connecting = Machine(knownHeads: [:], heartbeatMillis: 1_000)
        _ = connecting.start()
        #expect(connecting.stop() == [])
        #expect(connecting.connected(heads: [:], now: 0) == [.close], "a connection made after the stop is closed")
    }

    @Test func failuresOutsideAConnectionChangeNothing() {
        var machine = Machine(knownHeads: [:], heartbeatMillis: 1_000)
        #expect(machine.failed(reason: "x", now: 0) == [])
        #expect(machine.connectFailed(now: 0) == [])
        #expect(machine.state == .idle)
    }
}
