import Glibc

/// Memory that built rows and initialized destinations really occupy: allocated with `malloc`
/// and written (so it is resident) when the simulator initializes them, freed when it releases
/// them. Models a row's top-level state and eagerly built destinations (seeds 003 and 004).
///
/// Not thread-safe: the lab drives it from its one simulation thread.
final class RowMemory {
    private let stateBytes: Int
    private let destinationBytes: Int
    private var rows: [Int: (pointer: UnsafeMutableRawPointer, bytes: Int)] = [:]
    private var destinations: [Int: (pointer: UnsafeMutableRawPointer, bytes: Int)] = [:]

    /// Bytes held now by rows and destinations.
    private(set) var heldBytes = 0

    init(stateBytes: Int, destinationBytes: Int) {
        self.stateBytes = stateBytes
        self.destinationBytes = destinationBytes
    }

    deinit {
        for entry in rows.values { free(entry.pointer) }
        for entry in destinations.values { free(entry.pointer) }
    }

    /// Builds `row` with `bytes` of state (a trace's per-row `stateBytes`), or the scenario's.
    func rowInitialized(_ row: Int, bytes: Int? = nil) { allocate(row, bytes ?? stateBytes, in: &rows) }
    func rowReleased(_ row: Int) { release(row, in: &rows) }
    func destinationInitialized(_ row: Int) { allocate(row, destinationBytes, in: &destinations) }
    func destinationReleased(_ row: Int) { release(row, in: &destinations) }

    private func allocate(_ row: Int, _ bytes: Int, in table: inout [Int: (pointer: UnsafeMutableRawPointer, bytes: Int)]) {
        guard bytes > 0, table[row] == nil, let pointer = malloc(bytes) else { return }
        memset(pointer, Int32(row & 0x7F) | 1, bytes)
        table[row] = (pointer, bytes)
        heldBytes += bytes
    }

    private func release(_ row: Int, in table: inout [Int: (pointer: UnsafeMutableRawPointer, bytes: Int)]) {
        guard let entry = table.removeValue(forKey: row) else { return }
        free(entry.pointer)
        heldBytes -= entry.bytes
    }
}
