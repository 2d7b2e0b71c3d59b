import SystemIO
import Testing
@testable import Retention

/// The fetch slots' queue on its own: who gets a freed slot. Order only, no timing.
@Suite("Fetch limiter", .timeLimit(.minutes(1)))
struct FetchLimiterTests {
    /// What each waiter's acquire answered, in the order they answered.
    final class Outcomes: Sendable {
        private let lines = Lock<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("a freed slot goes to the most urgent waiting load, first come among equals; a raised one moves up, a cancelled one leaves with false")
    func order() async throws {
        let limiter = FetchLimiter(limit: 1)
        #expect(await limiter.acquire(for: LoadTicket(id: 0)))
        let outcomes = Outcomes()
        var tickets: [String: LoadTicket] = [:]
        var tasks: [Task<Void, Never>] = []
        let waiters: [(String, LoadPriority)] = [("low", .low), ("first", .normal), ("second", .normal), ("raised", .low), ("cancelled", .veryHigh)]
        for (i, (name, priority)) in waiters.enumerated() {
            let ticket = LoadTicket(id: UInt64(i + 1))
            ticket.priority = priority
            tickets[name] = ticket
            tasks.append(Task { @Sendable [name, ticket, limiter, outcomes] in
                let granted = await limiter.acquire(for: ticket)
                outcomes.append("\(name) \(granted)")
                if granted { limiter.release() }
            })
            // Each waits before the next comes, so first come is the list's order.
            while limiter.counts.waiting < i + 1 { try await Task.sleep(for: .milliseconds(1)) }
        }
        tickets["raised"]?.priority = .high  // while it waits: it moves ahead of the normal ones
        tickets["cancelled"]?.cancel()  // no task to cancel here: the freed slot finds it cancelled
        limiter.release()
        for task in tasks { await task.value }
        let all = outcomes.all
        #expect(all.filter { $0.hasSuffix(" true") } == ["raised true", "first true", "second true", "low true"], "\(all)")
        #expect(all.contains("cancelled false"), "\(all)")
        #expect(limiter.counts == (waiting: 0, inFlight: 0))
    }
}
