import Foundation
import Testing
import SystemIO

@Suite("Machine: cores and the stamp's description")
struct MachineTests {
    @Test("the core count is the kernel's online CPUs, and the description starts with it")
    func cores() throws {
        // /sys/devices/system/cpu/online lists ranges like 0-1 or 0,2-3.
        let online = try String(contentsOfFile: "/sys/devices/system/cpu/online", encoding: .utf8)
        let count = online.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").reduce(0) { total, range in
            let ends = range.split(separator: "-").compactMap { Int($0) }
            return total + (ends.count == 2 ? ends[1] - ends[0] + 1 : 1)
        }
        #expect(Machine.onlineCores == count)
        #expect(Machine.description.hasPrefix("\(count) cores, "))
        #expect(!Machine.description.hasSuffix(", "))
    }
}
