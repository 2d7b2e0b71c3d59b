import SystemIO
import Testing

/// The order of the worker pool's jobs and the cache's fetch slots: the most urgent first, first
/// in among equals, with removal and changes of priority by key. Order only, no timing.
@Suite("Urgency queue")
struct UrgencyQueueTests {
    func drain(_ queue: inout UrgencyQueue<Int, String>) -> [String] {
        var order: [String] = []
        while let (_, element) = queue.popFirst() { order.append(element) }
        return order
    }

    @Test("the most urgent first, first in among equals")
    func order() {
        var queue = UrgencyQueue<Int, String>()
        for (key, (name, priority)) in [("a", 1), ("b", 3), ("c", 1), ("d", 3), ("e", 0), ("f", 2)].enumerated() {
            queue.insert(name, key: key, priority: priority)
        }
        #expect(queue.count == 6 && queue.first?.element == "b")
        #expect(drain(&queue) == ["b", "d", "f", "a", "c", "e"])
        let none = queue.popFirst()
        #expect(queue.isEmpty && none == nil)
    }

    @Test("a removed (cancelled) element is never taken; removing it again or an unknown key is nil")
    func removal() {
        var queue = UrgencyQueue<Int, String>()
        for key in 0..<6 { queue.insert("\(key)", key: key, priority: key % 2) }
        let removed = [queue.remove(3), queue.remove(3), queue.remove(42), queue.remove(0)]
        #expect(removed == ["3", nil, nil, "0"])
        #expect(!queue.contains(3) && queue.contains(5) && queue.element(for: 5) == "5")
        #expect(drain(&queue) == ["1", "5", "2", "4"])
    }

    @Test("a changed priority moves the element among its new equals by when it was inserted")
    func reprioritize() {
        var queue = UrgencyQueue<Int, String>()
        for key in 0..<5 { queue.insert("\(key)", key: key, priority: 1) }
        let changed = [
            queue.setPriority(2, of: 3),  // raised: ahead of everything
            queue.setPriority(0, of: 0),  // lowered: behind everything
            queue.setPriority(2, of: 1),  // raised too: inserted before 3, so ahead of it
            queue.setPriority(5, of: 99),  // no such key
        ]
        #expect(changed == [true, true, true, false])
        #expect(drain(&queue) == ["1", "3", "2", "4", "0"])
    }

    /// The rule as the lab's LoadQueue scans it: the most urgent, the earliest inserted among equals.
    @Test("random inserts, removals, changes and takes give what a scan of the waiting list gives")
    func matchesAScan() {
        var queue = UrgencyQueue<Int, Int>()
        var model: [(key: Int, priority: Int)] = []  // in order of insertion
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var nextKey = 0
        for _ in 0..<20_000 {
            switch next(10) {
            case 0...3:
                let priority = next(5)
                queue.insert(nextKey, key: nextKey, priority: priority)
                model.append((nextKey, priority))
                nextKey += 1
            case 4, 5:
                guard !model.isEmpty else { continue }
                let at = next(model.count)
                let removed = queue.remove(model[at].key)
                #expect(removed == model[at].key)
                model.remove(at: at)
            case 6, 7:
                guard !model.isEmpty else { continue }
                let at = next(model.count), priority = next(5)
                let changed = queue.setPriority(priority, of: model[at].key)
                #expect(changed)
                model[at].priority = priority
            default:
                var chosen: Int?
                for (i, entry) in model.enumerated() where chosen == nil || entry.priority > model[chosen!].priority { chosen = i }
                let expected = chosen.map { model.remove(at: $0).key }
                let taken = queue.popFirst()?.key
                #expect(taken == expected)
            }
            #expect(queue.count == model.count)
        }
    }
}
