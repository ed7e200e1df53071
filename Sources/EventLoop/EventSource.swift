/// Something registered with an ``EventLoop`` for readiness events on one file descriptor.
///
/// Sources are owned by the loop thread; `generation` lets the loop drop an event that was
/// queued for an earlier owner of a reused descriptor.
protocol EventSource: AnyObject {
    var fd: Int32 { get }
    var generation: UInt32 { get }
    /// Handled before the other sources ready at the same time (a listening socket: a client
    /// waiting to be accepted would otherwise wait for every ready connection first).
    var isUrgent: Bool { get }
    func handle(events: UInt32)
}

extension EventSource {
    var isUrgent: Bool { false }
}
