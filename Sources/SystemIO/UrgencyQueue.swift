/// Elements waiting for a place (a worker thread, a fetch slot), taken the most urgent first and,
/// among equals, in the order they were inserted: the order of `WorkerPool`'s jobs and of the
/// image cache's fetch slots (Retention's `LoadPriority` is the priority there).
///
/// Each element is inserted under a key of the owner's; by that key it can be removed (a
/// cancelled waiter) or given a new priority (a load raised while it waits, which then keeps its
/// place in the order of insertion among its new equals). An indexed binary heap: inserting,
/// taking the first, removing and changing a priority are O(log n) (a heap's sift plus a
/// dictionary update per level), looking an element up is O(1); memory is one entry and one
/// dictionary slot per element. Not thread-safe: its owner keeps it behind its own lock.
package struct UrgencyQueue<Key: Hashable, Element> {
    private struct Entry {
        let key: Key
        /// The order of insertion, which breaks ties between equal priorities.
        let sequence: UInt64
        var priority: Int
        var element: Element

        /// True when `self` is taken before `other`: more urgent, or as urgent and inserted first.
        func precedes(_ other: Entry) -> Bool {
            priority != other.priority ? priority > other.priority : sequence < other.sequence
        }
    }

    /// The heap: `heap[0]` is taken next; every entry precedes its two children.
    private var heap: [Entry] = []
    /// Each key's index in `heap`.
    private var index: [Key: Int] = [:]
    private var nextSequence: UInt64 = 0

    /// An empty queue. O(1).
    package init() {}

    /// The elements waiting. O(1).
    package var count: Int { heap.count }

    /// True when nothing waits. O(1).
    package var isEmpty: Bool { heap.isEmpty }

    /// True when an element waits under `key`. O(1).
    package func contains(_ key: Key) -> Bool { index[key] != nil }

    /// The element waiting under `key`, or nil. O(1).
    package func element(for key: Key) -> Element? { index[key].map { heap[$0].element } }

    /// The element taken next and its key, without taking it; nil when empty. O(1).
    package var first: (key: Key, element: Element)? { heap.first.map { ($0.key, $0.element) } }

    /// Queues `element` under `key` (a key not already waiting: that is a programming error, and
    /// traps) behind every element already waiting at `priority`. O(log n).
    package mutating func insert(_ element: Element, key: Key, priority: Int) {
        precondition(index[key] == nil, "UrgencyQueue: the key \(key) is already waiting")
        heap.append(Entry(key: key, sequence: nextSequence, priority: priority, element: element))
        nextSequence += 1
        index[key] = heap.count - 1
        siftUp(heap.count - 1)
    }

    /// Takes the most urgent element, the first inserted among equals; nil when empty. O(log n).
    package mutating func popFirst() -> (key: Key, element: Element)? {
        guard !heap.isEmpty else { return nil }
        let entry = take(at: 0)
        return (entry.key, entry.element)
    }

    /// Removes and returns the element waiting under `key`, or nil when none does. O(log n).
    @discardableResult
    package mutating func remove(_ key: Key) -> Element? {
        guard let at = index[key] else { return nil }
        return take(at: at).element
    }

    /// Gives the element waiting under `key` the priority `priority`; it keeps its place in the
    /// order of insertion. Returns false (and changes nothing) when none waits under `key`. O(log n).
    @discardableResult
    package mutating func setPriority(_ priority: Int, of key: Key) -> Bool {
        guard let at = index[key] else { return false }
        let old = heap[at].priority
        guard old != priority else { return true }
        heap[at].priority = priority
        if priority > old { siftUp(at) } else { siftDown(at) }
        return true
    }

    /// Removes the entry at `at`: the last entry takes its place and sifts to where it belongs.
    private mutating func take(at: Int) -> Entry {
        let last = heap.count - 1
        if at != last { swapAt(at, last) }
        let entry = heap.removeLast()
        index[entry.key] = nil
        if at < heap.count {
            siftDown(at)
            siftUp(at)
        }
        return entry
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && heap[right].precedes(heap[left]) ? right : left
            guard heap[child].precedes(heap[parent]) else { return }
            swapAt(child, parent)
            parent = child
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        index[heap[a].key] = a
        index[heap[b].key] = b
    }
}
