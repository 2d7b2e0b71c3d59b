#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

import SystemIO

/// Watches the memory available to the process on Linux and calls a handler with a
/// ``MemoryWarningLevel`` when it runs short — what a server-side thumbnail pipeline needs in
/// place of iOS memory warnings (pass `cache.memoryWarning` as the handler).
///
/// Where the limit comes from: the process's cgroup v2 (`/proc/self/cgroup` → the `0::` path
/// → `/sys/fs/cgroup/<path>/memory.max` and `memory.current`) when `memory.max` sets a limit;
/// otherwise `/proc/meminfo` (`MemAvailable` of `MemTotal`). The handler fires on a rising
/// edge only — when the level goes from none to moderate, or up to critical — so a process
/// that stays short of memory is not told again every poll; it is re-armed when memory
/// recovers. Parsing is pure (see the static functions) and the file system root is a
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
            /// A cgroup v2 limit; the path is the cgroup's directory.
            case cgroup(directory: String)
            /// `/proc/meminfo`.
            case meminfo
        }

        /// Where the figures came from.
        public var origin: Origin
        /// The limit in bytes (`memory.max`, or `MemTotal`).
        public var limitBytes: Int
        /// Bytes available (`memory.max − memory.current`, or `MemAvailable`), never negative.
        public var availableBytes: Int

        /// A reading. O(1).
        public init(origin: Origin, limitBytes: Int, availableBytes: Int) {
            self.origin = origin
            self.limitBytes = limitBytes
            self.availableBytes = max(0, availableBytes)
        }

        /// `availableBytes / limitBytes`.
        public var availableFraction: Double { Double(availableBytes) / Double(max(1, limitBytes)) }
    }

    private struct State {
        var lastLevel: MemoryWarningLevel?
        var poller: Task<Void, Never>?
    }

    /// When each level fires.
    public let thresholds: Thresholds
    /// The file system root the paths are read under (`/` normally; a folder in tests).
    public let root: String
    private let handler: @Sendable (MemoryWarningLevel) -> Void
    private let state = Lock(State())

    /// A source calling `handler` as memory runs short. Nothing is read until ``poll()`` or
    /// ``start(interval:)``. O(1).
    public init(thresholds: Thresholds = Thresholds(), root: String = "/",
                handler: @escaping @Sendable (MemoryWarningLevel) -> Void) {
        self.thresholds = thresholds
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
        self.handler = handler
    }

    deinit {
        state.withLock { $0.poller?.cancel() }
    }

    /// The memory available now, or nil when neither a cgroup limit nor `/proc/meminfo`
    /// can be read. Costs a few small file reads.
    public func read() -> Reading? {
        if let cgroup = text("/proc/self/cgroup"), let path = Self.cgroupPath(procSelfCgroup: cgroup) {
            let directory = "/sys/fs/cgroup" + (path == "/" ? "" : path)
            if let maxText = text(directory + "/memory.max"), let limit = Self.cgroupLimit(memoryMax: maxText),
               let currentText = text(directory + "/memory.current"), let used = Self.cgroupUsage(memoryCurrent: currentText) {
                return Reading(origin: .cgroup(directory: directory), limitBytes: limit, availableBytes: limit - used)
            }
        }
        guard let meminfo = text("/proc/meminfo").flatMap(Self.meminfo) else { return nil }
        return Reading(origin: .meminfo, limitBytes: meminfo.total, availableBytes: meminfo.available)
    }

    /// Reads once and calls the handler if the level rose since the last poll. Returns the
    /// current level (nil when memory is fine or unreadable). Costs a few small file reads.
    @discardableResult
    public func poll() -> MemoryWarningLevel? {
        let level = read().flatMap { Self.level(for: $0, thresholds: thresholds) }
        let rose = state.withLock { state -> Bool in
            defer { state.lastLevel = level }
            guard let level else { return false }
            guard let last = state.lastLevel else { return true }
            return level > last
        }
        if rose, let level { handler(level) }
        return level
    }

    /// Polls every `interval` on a background task until ``stop()`` (or deinit). Calling it
    /// again while polling does nothing. O(1).
    public func start(interval: Duration = .seconds(1)) {
        state.withLock { state in
            guard state.poller == nil else { return }
            state.poller = Task.detached { [weak self] in
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
        let poller = state.withLock { state -> Task<Void, Never>? in
            defer { state.poller = nil }
            return state.poller
        }
        poller?.cancel()
    }

    private func text(_ path: String) -> String? {
        guard let data = try? FileIO.readAll(root + path, limit: 1 << 20) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
