/// Something registered with an ``EventLoop`` for readiness events on one file descriptor.
///
/// Sources are owned by the loop thread; `generation` lets the loop drop an event that was
/// queued for an earlier owner of a reused descriptor.
protocol EventSource: AnyObject {
    var fd: Int32 { get }
    var generation: UInt32 { get }
    func handle(events: UInt32)
}
