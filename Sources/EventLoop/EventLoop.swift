import CLinuxIO
import Foundation
import Glibc
import Synchronization

/// One epoll loop on its own thread.
///
/// The loop thread owns every socket registered with it; such state is touched only there.
/// Other threads hand work over with ``execute(_:)``, which appends to a mutex-guarded inbox
/// and pokes an eventfd. Once a second the loop runs its tick handlers: that single sweep
/// replaces per-connection timers (deadlines, heartbeats, lifetimes).
public final class EventLoop: @unchecked Sendable {
    // @unchecked: the fields other threads reach are immutable or synchronised (`inbox` is a
    // Mutex, `stopRequested` and `threadID` atomics), and every other field is touched only by
    // methods that assert they run on the loop thread.

    /// Monotonic seconds, refreshed once per loop iteration (loop thread only).
    public private(set) var now: Int64 = rcs_monotonic_seconds()

    /// The buffer every socket read on this loop lands in first: connections keep no read
    /// buffer of their own while idle.
    let readBuffer: UnsafeMutableRawBufferPointer

    /// Response heads are encoded here (loop thread only): a connection borrows it for one
    /// write, so answering costs no allocation for the head.
    var headBuffer: [UInt8] = []

    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    /// Set with each `execute`: a long batch of events looks at the inbox between events.
    private let inboxPending = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private var sources: [(any EventSource)?]
    /// The registered sources that say they are urgent (see `dispatch`).
    private var urgentSources: [any EventSource] = []
    private var tickHandlers: [() -> Void] = []
    /// Looks a busy loop makes between events (see `dispatch`).
    private var urgentChecks: [() -> Void] = []
    private var timers: [(due: Int64, work: () -> Void)] = []
    private var deferred: [() -> Void] = []
    /// The loop thread's id, 0 until it runs: written once by that thread, read by any.
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    private static let wakeToken: UInt64 = .max

    /// Creates a loop; call ``start(name:)`` to run it on a new thread.
    public init() throws(SocketError) {
        let epollFD = rcs_epoll_create()
        guard epollFD >= 0 else { throw SocketError("epoll_create1") }
        let wakeFD = rcs_eventfd()
        guard wakeFD >= 0 else {
            close(epollFD)
            throw SocketError("eventfd")
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        self.sources = []
        guard rcs_epoll_ctl(epollFD, Int32(RCS_EPOLL_ADD), wakeFD, UInt32(RCS_EPOLLIN), Self.wakeToken) == 0 else {
            throw SocketError("epoll_ctl")
        }
    }

    deinit {
        close(epollFD)
        close(wakeFD)
        readBuffer.deallocate()
    }

    /// Runs the loop on a new thread.
    /// - Parameter niceIncrement: how much lower than its creator's the thread's scheduling
    ///   priority is (its nice value is raised by it; threads it creates inherit it).
    public func start(name: String, niceIncrement: Int32 = 0) {
        startNamedThread(name, stackSize: 1 << 20) { [self] in
            if niceIncrement != 0 { _ = rcs_raise_thread_nice(niceIncrement) }
            run()
        }
    }

    /// Asks the loop to stop after its current iteration; waits until it has.
    public func stopAndWait() {
        stopRequested.store(true, ordering: .releasing)
        rcs_eventfd_signal(wakeFD)
        finished.wait()
    }

    /// True when called on this loop's thread.
    public var inLoop: Bool {
        // Relaxed is enough: only the loop thread stored its own id, so any other thread sees
        // either 0 or an id that is not its own.
        let id = threadID.load(ordering: .relaxed)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    /// True once the loop thread runs.
    @usableFromInline var hasStarted: Bool { threadID.load(ordering: .relaxed) != 0 }

    /// Traps in debug builds when called off the loop thread (as `dispatchPrecondition`);
    /// costs nothing in release builds.
    @inlinable
    public func preconditionInLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(inLoop, "called off the loop thread", file: file, line: line)
    }

    /// As ``preconditionInLoop(file:line:)``, for set-up that may also run before the loop starts.
    @inlinable
    public func preconditionInLoopOrNotStarted(file: StaticString = #fileID, line: UInt = #line) {
        assert(!hasStarted || inLoop, "called off the loop thread", file: file, line: line)
    }

    /// Runs `work` on the loop thread, soon. Safe from any thread.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let wasEmpty = inbox.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        inboxPending.store(true, ordering: .releasing)
        if wasEmpty { rcs_eventfd_signal(wakeFD) }
    }

    /// Runs `work` on the loop thread: at once when already there, otherwise via the inbox.
    public func run(_ work: @escaping @Sendable () -> Void) {
        if inLoop { work() } else { execute(work) }
    }

    /// Calls `handler` once a second on the loop thread (loop thread only, or before start).
    public func onTick(_ handler: @escaping () -> Void) {
        preconditionInLoopOrNotStarted()
        tickHandlers.append(handler)
    }

    /// Calls `check` between the events of a long batch, every `urgentCheckInterval` of them
    /// (loop thread only, or before start): a look at shared memory that must not wait for
    /// the whole batch, so it must cost no more than a few atomic loads.
    public func onUrgentCheck(_ check: @escaping () -> Void) {
        preconditionInLoopOrNotStarted()
        urgentChecks.append(check)
    }

    /// Runs `work` on the loop thread after `seconds` (loop thread only; coarse, for rare events).
    public func schedule(afterSeconds seconds: Int64, _ work: @escaping () -> Void) {
        preconditionInLoop()
        timers.append((now + seconds, work))
    }

    /// Runs `work` at the end of this loop iteration, after its events and the work handed over
    /// (loop thread only): lets a source that stopped reading for fairness resume without
    /// waiting for a new edge, and bulk work go on a piece per iteration.
    public func deferUntilEndOfIteration(_ work: @escaping () -> Void) {
        preconditionInLoop()
        deferred.append(work)
    }

    // MARK: Registration (loop thread only, or before the loop starts)

    func register(_ source: any EventSource, events: UInt32) throws(SocketError) {
        preconditionInLoopOrNotStarted()
        let fd = Int(source.fd)
        if fd >= sources.count {
            sources.append(contentsOf: repeatElement(nil, count: max(fd + 1 - sources.count, 1024)))
        }
        sources[fd] = source
        let data = UInt64(UInt32(bitPattern: source.fd)) | UInt64(source.generation) << 32
        guard rcs_epoll_ctl(epollFD, Int32(RCS_EPOLL_ADD), source.fd, events, data) == 0 else {
            sources[fd] = nil
            throw SocketError("epoll_ctl")
        }
        if source.isUrgent { urgentSources.append(source) }
    }

    /// Forgets `source`; closing the descriptor removes it from epoll.
    func unregister(_ source: any EventSource) {
        preconditionInLoop()
        let fd = Int(source.fd)
        if fd < sources.count, sources[fd] === source { sources[fd] = nil }
        urgentSources.removeAll { $0 === source }
    }

    /// Stops watching a descriptor that stays open (a paused listener).
    func removeFromEpoll(_ source: any EventSource) {
        _ = rcs_epoll_ctl(epollFD, Int32(RCS_EPOLL_DEL), source.fd, 0, 0)
        unregister(source)
    }

    /// The live source on `fd` with `generation`, if any.
    func source(fd: Int32, generation: UInt32) -> (any EventSource)? {
        preconditionInLoop()
        let index = Int(fd)
        guard index >= 0, index < sources.count, let source = sources[index], source.generation == generation else {
            return nil
        }
        return source
    }

    // MARK: The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        var events = [rcs_event](repeating: rcs_event(), count: 256)
        var nextTick = rcs_monotonic_millis() + 1000
        while !stopRequested.load(ordering: .acquiring) {
            let timeout = deferred.isEmpty ? Int32(max(0, min(1000, nextTick - rcs_monotonic_millis()))) : 0
            let count = events.withUnsafeMutableBufferPointer { buffer in
                rcs_epoll_wait(epollFD, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            now = rcs_monotonic_seconds()
            if count > 0 { dispatch(events.prefix(Int(count))) }
            runInbox()
            runDeferred()
            let millis = rcs_monotonic_millis()
            if millis >= nextTick {
                nextTick = millis + 1000
                for handler in tickHandlers { handler() }
                runDueTimers()
            }
        }
        runInbox()
        finished.signal()
    }

    /// Handles a batch of events in order. Every `urgentCheckInterval` events it also polls the
    /// urgent sources (a listening socket: a publish waiting to be accepted), makes the urgent
    /// checks (``onUrgentCheck(_:)``) and runs the work other threads handed over (a response a
    /// store job computed), so that none waits for a whole batch of a busy loop. Bulk work cut in pieces (`deferUntilEndOfIteration`) waits
    /// for the end of the iteration.
    private func dispatch(_ batch: ArraySlice<rcs_event>) {
        for (index, event) in batch.enumerated() {
            if event.data == Self.wakeToken {
                rcs_eventfd_drain(wakeFD)
            } else {
                let fd = Int32(truncatingIfNeeded: event.data & 0xFFFF_FFFF)
                let generation = UInt32(truncatingIfNeeded: event.data >> 32)
                source(fd: fd, generation: generation)?.handle(events: event.events)
            }
            if index % Self.urgentCheckInterval == Self.urgentCheckInterval - 1 {
                for source in urgentSources { source.handle(events: UInt32(RCS_EPOLLIN)) }
                makeUrgentChecks()
            }
        }
    }

    /// Makes the urgent checks and runs the work other threads handed over: between events of a
    /// batch, and between the units of any other long stretch of loop work (a burst of accepts).
    func makeUrgentChecks() {
        preconditionInLoop()
        for check in urgentChecks { check() }
        if inboxPending.load(ordering: .acquiring) { runInbox() }
    }

    private static let urgentCheckInterval = 16

    private func runInbox() {
        inboxPending.store(false, ordering: .releasing)
        let work = inbox.withLock { queue -> [@Sendable () -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: false)
            return taken
        }
        for item in work { item() }
    }

    private func runDeferred() {
        guard !deferred.isEmpty else { return }
        let work = deferred
        deferred.removeAll()
        for item in work { item() }
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let due = timers.filter { $0.due <= now }
        timers.removeAll { $0.due <= now }
        for timer in due { timer.work() }
    }
}
