/// Loads waiting for a stage of the lab's virtual pipeline (a modelled fetch slot, a modelled
/// decode worker) in the order the cache's own stages keep: the most urgent ``LoadPriority``
/// first, first in, first out among equals.
///
/// An element's priority is asked when a place frees, not stored at `append`, so a priority
/// raised or lowered while the element waits reorders the queue, and which elements may be
/// taken is a predicate asked then (a modelled job that has not arrived yet). The cache's fetch
/// slots and decode workers keep the same order in SystemIO's `UrgencyQueue`, told of each
/// change of priority, in O(log n). Not thread-safe: its owner keeps it behind its own lock.
/// Appending is O(1) amortized; taking or removing is O(waiting): one scan, which the lab's
/// queues, a few loads long, can afford.
package struct LoadQueue<Element> {
    /// The waiting elements, in the order they came.
    private var elements: [Element] = []

    /// An empty queue. O(1).
    package init() {}

    /// The elements waiting. O(1).
    package var count: Int { elements.count }

    /// The waiting elements in the order they came (not the order they will be taken). O(1).
    package var inOrder: [Element] { elements }

    /// True when nothing waits. O(1).
    package var isEmpty: Bool { elements.isEmpty }

    /// Queues `element` behind every element already waiting at its priority. O(1) amortized.
    package mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// Queues `element` behind every waiting element that `arrivesBefore` says came no later
    /// than it (for a queue whose elements arrive at modelled times, as the lab's virtual
    /// decodes do: first in is first to arrive). O(waiting).
    package mutating func insert(_ element: Element, arrivingAfter arrivesBefore: (Element, Element) -> Bool) {
        let place = elements.lastIndex { !arrivesBefore(element, $0) }.map { $0 + 1 } ?? 0
        elements.insert(element, at: place)
    }

    /// Takes the most urgent element `eligible` accepts (by `priority`, asked now), the
    /// earliest queued among equals; nil when none is eligible. O(waiting).
    package mutating func popMostUrgent(priority: (Element) -> LoadPriority,
                                        where eligible: (Element) -> Bool = { _ in true }) -> Element? {
        var chosen: Int?
        var best = LoadPriority.veryLow
        for (i, element) in elements.enumerated() where eligible(element) {
            let urgency = priority(element)
            // Strictly more urgent: an equal one queued later never overtakes.
            if chosen == nil || urgency > best { (chosen, best) = (i, urgency) }
        }
        return chosen.map { elements.remove(at: $0) }
    }

    /// Removes and returns the first element `matches` accepts, or nil. O(waiting).
    @discardableResult
    package mutating func removeFirst(where matches: (Element) -> Bool) -> Element? {
        elements.firstIndex(where: matches).map { elements.remove(at: $0) }
    }

    /// True when a waiting element satisfies `matches`. O(waiting).
    package func contains(where matches: (Element) -> Bool) -> Bool {
        elements.contains(where: matches)
    }

    /// Changes, in place, every waiting element `matches` accepts (its place in the order of
    /// arrival stays). O(waiting).
    package mutating func update(where matches: (Element) -> Bool, _ change: (inout Element) -> Void) {
        for i in elements.indices where matches(elements[i]) { change(&elements[i]) }
    }
}
