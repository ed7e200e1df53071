import CLinuxIO
import Foundation

/// Starts a thread named `name` where `top -H`, `ps -L` and `perf` show it (its first 15
/// bytes): Foundation's `Thread.name` does not reach the kernel on Linux.
public func startNamedThread(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        rcs_name_this_thread(name)
        body()
    }
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
}
