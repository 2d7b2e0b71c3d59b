import Dispatch
import Glibc

/// SIGINT and SIGTERM turned into a callback on a Dispatch queue, so long work can stop
/// cleanly (write what it measured, stop its children) instead of dying mid-write.
enum Signals {
    /// Ignores the default action of SIGINT and SIGTERM and calls `handler` with the signal
    /// number on a global queue each time one arrives. Keep the returned sources alive (cancel
    /// them when done).
    static func onStop(_ handler: @escaping (Int32) -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }
}
