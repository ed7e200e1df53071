import CLinuxIO
import Dispatch
import Foundation

/// Starts a thread named `name` where `top -H`, `ps -L` and `perf` show it (its first 15
/// bytes): Foundation's `Thread.name` does not reach the kernel on Linux. Returns once the thread
/// carries its name, so whoever looks next finds it named.
public func startNamedThread(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
    let named = DispatchSemaphore(value: 0)
    let thread = Thread {
        rcs_name_this_thread(name)
        named.signal()
        body()
    }
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
    named.wait()
}
