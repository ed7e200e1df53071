import Foundation

/// Lets `seconds` of real time pass on this thread. Only for what is itself a span of time: how
/// long a fault lasts, a workload's pace, a delay line, a lock held. A test that waits for
/// something to happen awaits its event instead (a stream's message, a log line, a semaphore),
/// and one that depends on the time of day moves a `ManualClock`.
public func letTimePass(seconds: Double) {
    guard seconds > 0 else { return }
    Thread.sleep(forTimeInterval: seconds)
}
