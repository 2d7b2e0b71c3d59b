import SystemIO
import Synchronization

/// Watches the memory available to the process on Linux and calls a handler with a
/// ``MemoryWarningLevel`` when it runs short — what a server-side thumbnail pipeline needs in
/// place of iOS memory warnings (pass Retention's `cache.memoryWarning` as the handler).
///
/// Where the limit comes from, first that sets one: the process's cgroup v2 group
/// (`/proc/self/cgroup` → the `0::` path → `/sys/fs/cgroup/<path>/memory.max` and
/// `memory.current`); its cgroup v1 memory group (the `memory` controller's path →
/// `/sys/fs/cgroup/memory/<path>/memory.limit_in_bytes` and `memory.usage_in_bytes`);
/// otherwise `/proc/meminfo` (`MemAvailable` of `MemTotal`). The files are parsed by
/// ``MemoryLimits``' parsers. The handler fires on a rising edge only — when the level goes
/// from none to moderate, or up to critical — so a process that stays short of memory is not
/// told again every poll; it is re-armed when memory recovers. The file system root is a
/// parameter, so tests run on fixed file contents.
public final class MemoryPressureSource: Sendable {
    /// The available fractions (0–1) at or below which each level fires.
    public struct Thresholds: Sendable, Hashable {
        /// Default 0.15: fifteen percent or less of the limit available.
        public var moderate: Double
        /// Default 0.05.
        public var critical: Double

        /// Thresholds; the defaults are 0.15 and 0.05. O(1).
        public init(moderate: Double = 0.15, critical: Double = 0.05) {
            self.moderate = moderate
            self.critical = critical
        }
    }

    /// One look at the memory available.
    public struct Reading: Sendable, Hashable {
        /// Where the figures came from.
        public enum Origin: Sendable, Hashable {
            /// A cgroup limit (v2 `memory.max` or v1 `memory.limit_in_bytes`); the path is the
            /// group's folder (under `/sys/fs/cgroup/memory` for v1).
            case cgroup(directory: String)
            /// `/proc/meminfo`.
            case meminfo
        }

        /// Where the figures came from.
        public var origin: Origin
        /// The limit in bytes (the cgroup's limit, or `MemTotal`).
        public var limitBytes: Int
        /// Bytes available (the limit less the cgroup's usage, or `MemAvailable`), never negative.
        public var availableBytes: Int

        /// A reading. O(1).
        public init(origin: Origin, limitBytes: Int, availableBytes: Int) {
            self.origin = origin
            self.limitBytes = limitBytes
            self.availableBytes = max(0, availableBytes)
        }

        /// `availableBytes / limitBytes`. O(1).
        public var availableFraction: Double { Double(availableBytes) / Double(max(1, limitBytes)) }
    }

    /// When each level fires.
    public let thresholds: Thresholds
    /// The file system root the paths are read under (`/` normally; a folder in tests).
    public let root: String
    private let handler: @Sendable (MemoryWarningLevel) -> Void
    /// The level of the last poll as its ``MemoryWarningLevel/rank`` (0: none). An `Atomic`,
    /// not a lock: a poll swaps in its level and fires when it is higher than the one it
    /// replaced, so concurrent polls report each rise once.
    private let lastRank = Atomic<UInt8>(0)
    /// The polling task while ``start(interval:)`` runs. A `Lock`: start, stop and deinit
    /// hold it only to swap the handle.
    private let poller = Lock<Task<Void, Never>?>(nil)

    /// A source calling `handler` as memory runs short. Nothing is read until ``poll()`` or
    /// ``start(interval:)``. O(1).
    public init(thresholds: Thresholds = Thresholds(), root: String = "/",
                handler: @escaping @Sendable (MemoryWarningLevel) -> Void) {
        self.thresholds = thresholds
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
        self.handler = handler
    }

    deinit {
        poller.withLock { $0?.cancel() }
    }

    /// The memory available now, or nil when neither a cgroup limit nor `/proc/meminfo`
    /// can be read. Costs a few small file reads (at most five).
    public func read() -> Reading? {
        if let cgroup = text(ProcPaths.cgroup) {
            let paths = MemoryLimits.parseCgroupPaths(cgroup)
            for (path, hierarchy) in [(paths.v2, CgroupHierarchy.v2), (paths.v1Memory, CgroupHierarchy.v1)] {
                guard let path, let limit = text(hierarchy.limitPath(path)), let usage = text(hierarchy.usagePath(path)),
                      let reading = Self.cgroupReading(directory: hierarchy.folder(path), limit: limit, usage: usage) else { continue }
                return reading
            }
        }
        return text(ProcPaths.meminfo).flatMap(Self.meminfoReading)
    }

    /// Reads once and calls the handler if the level rose since the last poll. Returns the
    /// current level (nil when memory is fine or unreadable). Costs a few small file reads.
    @discardableResult
    public func poll() -> MemoryWarningLevel? {
        let level = self.read().flatMap { Self.level(for: $0, thresholds: thresholds) }
        let rank = level?.rank ?? 0
        // Relaxed: the rank publishes no other memory; the exchange alone orders the polls.
        if lastRank.exchange(rank, ordering: .relaxed) < rank, let level { handler(level) }
        return level
    }

    /// Polls every `interval` on a background task until ``stop()`` (or deinit). Calling it
    /// again while polling does nothing. O(1).
    public func start(interval: Duration = .seconds(1)) {
        poller.withLock { poller in
            guard poller == nil else { return }
            poller = Task.detached { [weak self] in
                while !Task.isCancelled {
                    do {
                        guard let source = self else { return }
                        source.poll()
                    }
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Stops polling. O(1).
    public func stop() {
        let task = poller.withLock { poller -> Task<Void, Never>? in
            defer { poller = nil }
            return poller
        }
        task?.cancel()
    }

    /// The text of `path` under ``root``, or nil when it cannot be read.
    private func text(_ path: String) -> String? {
        guard case .success(let data) = ProcFileReads.readAll(root + path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
