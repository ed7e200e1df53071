@testable import EventLoop
import HTTP1
import Testing

/// The transport's behaviour, driven through the connection's state machine with a manual
/// clock: no socket, no waiting for real time.
@Suite struct HTTPConnectionStateMachineTests {
    typealias Machine = HTTPConnectionStateMachine
    /// Defaults: header 10 s, body 30 s, idle 75 s, write 30 s, stream backlog 64 KiB.
    static let configuration = HTTPServerConfiguration()
    var now: Int64 = 1_000
    var machine = Machine(parserLimits: configuration.limits, limits: Machine.Limits(configuration), now: 1_000)

    static func get(_ target: String, _ extra: String = "", version: String = "1.1") -> String {
        "GET \(target) HTTP/\(version)\r\nHost: a\r\n\(extra)\r\n"
    }

    static func dispatched(_ actions: [Machine.InputAction]) -> [String] {
        actions.compactMap { if case .dispatch(let request) = $0 { request.head.target } else { nil } }
    }

    /// Answers the request in hand the way the connection does.
    mutating func answer() -> (framing: Machine.ResponseFraming?, after: Machine.Action) {
        let framing = machine.responseFraming()
        machine.wrote(now: now)
        return (framing, machine.responseWritten(now: now))
    }

    // MARK: Requests, one at a time

    @Test mutating func pipelinedRequestsAreHandedOverOneAtATimeInOrder() {
        let actions = machine.receive(Self.get("/a") + Self.get("/b") + Self.get("/c"), now: now)
        #expect(Self.dispatched(actions) == ["/a"])
        #expect(!machine.wantsInput)
        #expect(machine.nextInput(now: now) == .stop)
        for next in ["/b", "/c"] {
            #expect(answer().after == Machine.Action.none)
            #expect(Self.dispatched(machine.drain(now: now)) == [next])
        }
        #expect(answer().after == Machine.Action.none)
        #expect(machine.drain(now: now) == [.needMoreInput])
        #expect(machine.wantsInput)
    }

    @Test mutating func aRequestSplitAcrossReadsIsHandedOverWhenComplete() {
        let request = Self.get("/split")
        #expect(machine.receive(String(request.prefix(9)), now: now) == [.needMoreInput])
        #expect(Self.dispatched(machine.receive(String(request.dropFirst(9)), now: now)) == ["/split"])
    }

    @Test mutating func anAnswerWithNoRequestInHandIsIgnored() {
        #expect(machine.responseFraming() == nil)
        #expect(machine.responseWritten(now: now) == .none)
        #expect(machine.phase == .reading)
    }

    // MARK: Keep-alive, Connection: close, HTTP/1.0

    @Test mutating func aKeepAliveConnectionReadsTheNextRequest() {
        _ = machine.receive(Self.get("/"), now: now)
        let (framing, after) = answer()
        #expect(framing == Machine.ResponseFraming(closesConnection: false, omitsBody: false))
        #expect(after == .none)
        #expect(machine.phase == .reading)
    }

    @Test mutating func connectionCloseIsAnsweredWithCloseThenTheConnectionCloses() {
        _ = machine.receive(Self.get("/", "Connection: close\r\n"), now: now)
        let (framing, after) = answer()
        #expect(framing?.closesConnection == true)
        #expect(after == .close)
    }

    @Test mutating func aClosingResponseTheSocketCannotTakeAtOnceClosesOnceWritten() {
        _ = machine.receive(Self.get("/", "Connection: close\r\n"), now: now)
        #expect(machine.responseFraming()?.closesConnection == true)
        machine.writeBlocked()
        #expect(machine.responseWritten(now: now) == .none)
        #expect(machine.phase == .closing)
        #expect(machine.writeDrained(now: now) == .close)
    }

    @Test(arguments: [("", true), ("Connection: keep-alive\r\n", false)])
    mutating func http10ClosesUnlessAskedToKeepAlive(_ extra: String, _ closes: Bool) {
        _ = machine.receive(Self.get("/", extra, version: "1.0"), now: now)
        #expect(answer().framing?.closesConnection == closes)
    }

    @Test mutating func aHeadRequestIsAnsweredWithoutBody() {
        _ = machine.receive("HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", now: now)
        #expect(machine.responseFraming()?.omitsBody == true)
    }

    @Test mutating func aMalformedRequestGetsAnErrorThenTheConnectionCloses() {
        let actions = machine.receive("GET / HTTP/1.1\r\nHost a\r\n\r\n", now: now)
        guard case .sendErrorAndClose(let status, _)? = actions.last else {
            Issue.record("no error: \(actions)")
            return
        }
        #expect(status == 400)
        #expect(machine.phase == .closing)
        #expect(!machine.wantsInput)
        #expect(machine.writeDrained(now: now) == .linger, "input may be unread: drop it before the close")
    }

    // MARK: Lingering after an error answer

    /// An answered error whose client may still be sending: its input is dropped from now on.
    mutating func lingerAfterAnError() {
        _ = machine.receive("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999\r\n\r\n", now: now)
        #expect(machine.writeDrained(now: now) == .linger)
        machine.lingerBegun(now: now)
        #expect(machine.phase == .lingering && machine.wantsInput)
    }

    @Test mutating func lingeringEndsWhenTheClientCloses() {
        lingerAfterAnError()
        #expect(machine.dropped(1000, now: now) == .none)
        #expect(machine.peerClosed() == .close)
    }

    @Test mutating func lingeringIsBoundedInTimeEvenForAClientThatKeepsSending() {
        lingerAfterAnError()
        for second in 1..<Self.configuration.lingerTimeout {
            #expect(machine.dropped(10, now: now + second) == .none)
            #expect(machine.tick(now: now + second) == .none)
        }
        #expect(machine.tick(now: now + Self.configuration.lingerTimeout) == .close)
    }

    @Test mutating func lingeringEndsAfterAnIdlePause() {
        lingerAfterAnError()
        #expect(machine.tick(now: now + Self.configuration.lingerIdleTimeout - 1) == .none)
        #expect(machine.tick(now: now + Self.configuration.lingerIdleTimeout) == .close)
    }

    @Test mutating func lingeringIsBoundedInBytes() {
        lingerAfterAnError()
        #expect(machine.dropped(Self.configuration.lingerMaxBytes, now: now) == .none)
        #expect(machine.dropped(1, now: now) == .close)
    }

    @Test mutating func aClientThatClosedFirstIsNotLingeredFor() {
        _ = machine.receive("GET / HTTP/1.1\r\nHost a\r\n\r\n", now: now)
        #expect(machine.peerClosed() == .none)
        #expect(machine.writeDrained(now: now) == .close)
    }

    @Test mutating func aStoppingServerClosesALingeringConnection() {
        lingerAfterAnError()
        #expect(machine.shutdownBegun() == .close)
    }

    // MARK: 100-continue

    @Test mutating func expectContinueIsAnsweredOnceBeforeTheBody() {
        let head = "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        #expect(machine.receive(head, now: now) == [.sendContinue, .needMoreInput])
        #expect(machine.receive("ab", now: now) == [.needMoreInput])
        #expect(Self.dispatched(machine.receive("cd", now: now)) == ["/p"])
    }

    @Test mutating func aBodySentWithItsHeadNeedsNoContinue() {
        let request = "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nab"
        #expect(Self.dispatched(machine.receive(request, now: now)) == ["/p"])
    }

    // MARK: Deadlines

    @Test mutating func aHeadNotFinishedInTimeGets408() {
        #expect(machine.receive("GET / HTTP/1.1\r\nHost: a\r\n", now: now) == [.needMoreInput])
        #expect(machine.tick(now: now + 9) == .none)
        // Trickling bytes does not move the deadline (slowloris).
        _ = machine.receive("X-A: b\r\n", now: now + 9)
        #expect(machine.tick(now: now + 10) == .sendErrorAndClose(status: 408, reason: Machine.timeoutReason))
        #expect(machine.phase == .closing)
    }

    @Test mutating func aBodyHasItsOwnLongerDeadline() {
        let head = "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"
        #expect(machine.receive(head, now: now) == [.needMoreInput])
        #expect(machine.tick(now: now + 10) == .none)
        #expect(machine.tick(now: now + 29) == .none)
        #expect(machine.tick(now: now + 30) == .sendErrorAndClose(status: 408, reason: Machine.timeoutReason))
    }

    @Test mutating func anIdleConnectionIsClosedAfterTheIdleTimeout() {
        _ = machine.receive(Self.get("/"), now: now)
        now += 5
        _ = answer()
        #expect(machine.tick(now: now + 74) == .none)
        #expect(machine.tick(now: now + 75) == .close)
    }

    @Test mutating func aSlowHandlerIsNeverCutOff() {
        _ = machine.receive(Self.get("/"), now: now)
        #expect(machine.tick(now: now + 1_000) == .none)
    }

    @Test mutating func aClientThatDoesNotReadItsResponseIsCutOffAfterTheWriteTimeout() {
        _ = machine.receive(Self.get("/", "Connection: close\r\n"), now: now)
        machine.writeBlocked()
        #expect(machine.responseWritten(now: now) == .none)
        #expect(machine.tick(now: now + 29) == .none)
        machine.wrote(now: now + 20)  // a partial write is progress
        #expect(machine.tick(now: now + 49) == .none)
        #expect(machine.tick(now: now + 50) == .close)
    }

    // MARK: Back-pressure and held streams

    @Test mutating func nothingIsReadWhileARequestIsBeingAnswered() {
        _ = machine.receive(Self.get("/a"), now: now)
        #expect(!machine.wantsInput)
        _ = answer()
        #expect(machine.wantsInput)
    }

    @Test(arguments: [("1.1", false), ("1.0", true)])
    mutating func aStreamIsChunkedExceptForHTTP10(_ version: String, _ unframed: Bool) {
        _ = machine.receive(Self.get("/s", version: version), now: now)
        #expect(machine.streamStarted(now: now) == unframed)
        #expect(machine.chunk(backlog: 0) == .write(unframed: unframed))
        #expect(machine.streamFinished() == !unframed)
        #expect(machine.phase == .closing)
    }

    @Test mutating func aStreamWhoseClientStopsReadingIsCutOffOverTheCap() {
        _ = machine.receive(Self.get("/s"), now: now)
        _ = machine.streamStarted(now: now)
        let cap = Self.configuration.streamOutputCap
        #expect(machine.chunk(backlog: cap) == .write(unframed: false))
        #expect(machine.chunk(backlog: cap + 1) == .close)
    }

    @Test mutating func aStreamReadsOnlyToNoticeTheClose() {
        _ = machine.receive(Self.get("/s"), now: now)
        _ = machine.streamStarted(now: now)
        #expect(machine.wantsInput)
        #expect(machine.receive(Self.get("/ignored"), now: now).isEmpty)
        #expect(machine.nextInput(now: now) == .stop)
        #expect(machine.peerClosed() == .close)
    }

    @Test mutating func aStreamCannotStartTwiceNorAfterAnAnswer() {
        _ = machine.receive(Self.get("/s"), now: now)
        _ = answer()
        #expect(machine.streamStarted(now: now) == nil)
        #expect(machine.chunk(backlog: 0) == .drop)
        #expect(machine.streamFinished() == nil)
    }

    // MARK: The peer's close

    @Test mutating func aPeerThatClosesBetweenRequestsIsClosed() {
        #expect(machine.peerClosed() == .close)
    }

    @Test mutating func aPeerThatClosesWhileItsResponseIsWrittenIsClosedOnceWritten() {
        _ = machine.receive(Self.get("/"), now: now)
        _ = answer()
        machine.writeBlocked()
        #expect(machine.peerClosed() == .none)
        #expect(machine.writeDrained(now: now) == .close)
    }

    @Test mutating func aRequestSentBeforeTheFINIsStillAnsweredThenClosed() {
        _ = machine.receive(Self.get("/"), now: now)
        #expect(machine.peerClosed() == .none)
        let (framing, after) = answer()
        #expect(framing?.closesConnection == true)
        #expect(after == .close)
    }

    // MARK: Shutdown

    @Test mutating func shutdownClosesAConnectionBetweenRequests() {
        #expect(machine.shutdownBegun() == .close)
    }

    @Test mutating func shutdownLetsAStartedRequestFinishWithClose() {
        #expect(machine.receive("GET / HTTP/1.1\r\n", now: now) == [.needMoreInput])
        #expect(machine.shutdownBegun() == .none)
        #expect(Self.dispatched(machine.receive("Host: a\r\n\r\n", now: now)) == ["/"])
        let (framing, after) = answer()
        #expect(framing?.closesConnection == true)
        #expect(after == .close)
    }

    @Test mutating func shutdownLetsTheRequestInHandBeAnswered() {
        _ = machine.receive(Self.get("/"), now: now)
        #expect(machine.shutdownBegun() == .none)
        #expect(machine.responseFraming() != nil)
    }

    @Test mutating func aClosedConnectionTakesNoFurtherAction() {
        _ = machine.receive(Self.get("/"), now: now)
        machine.closed()
        #expect(machine.responseFraming() == nil)
        #expect(machine.nextInput(now: now) == .stop)
        #expect(machine.tick(now: now + 10_000) == .none)
        #expect(machine.peerClosed() == .none)
    }
}

extension HTTPConnectionStateMachine {
    /// Feeds `text` as one read and returns the input actions up to the first that waits.
    mutating func receive(_ text: String, now: Int64) -> [InputAction] {
        let accepted = Array(text.utf8).withUnsafeBytes { received($0, now: now) }
        return accepted ? drain(now: now) : []
    }

    /// The input actions up to the first that waits, as the connection takes them.
    mutating func drain(now: Int64) -> [InputAction] {
        var actions: [InputAction] = []
        while true {
            let action = nextInput(now: now)
            actions.append(action)
            if action != .sendContinue { return actions }
        }
    }
}
