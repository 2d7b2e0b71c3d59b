import SystemIO

/// The cache's decode workers, and (one thread of its own) its disk writer, are SystemIO's
/// `WorkerPool`, whose jobs wait in the order of their load's ``LoadPriority``.
extension WorkerPool {
    /// A pool of `limit` decode workers; a job without a load waits as a `normal` one. O(1).
    convenience init(limit: Int) {
        self.init(threads: limit, name: "retention.decode", defaultPriority: LoadPriority.normal.rawValue)
    }

    /// Queues `work`, which runs when no more urgent load waits (`ticket`'s priority, asked now
    /// and again whenever it changes while the job waits; none is `normal`). O(log queued).
    func submit(ticket: LoadTicket?, _ work: @escaping Work) {
        guard let ticket else {
            submit(priority: nil, work)
            return
        }
        let job = submit(priority: { @Sendable in ticket.priority.rawValue }, work)
        // Weak: a ticket outliving the cache must not keep its workers.
        ticket.whenPriorityChanges { [weak self] in self?.reprioritize(job) }
        // A change between the submission and the registration above.
        reprioritize(job)
    }
}
