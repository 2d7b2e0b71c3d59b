import Scenario
import Imaging
import MemoryProbe
import Retention
import SystemIO

/// A run stopped because resident memory went over its limit (`Experiment.maxResidentBytes`).
/// Carries what the run measured up to then; `description` is the one-line message.
public struct ResidentLimitReached: Error, CustomStringConvertible, Sendable, Hashable {
    /// Resident bytes when the limit was seen crossed.
    public var residentBytes: Int
    /// The virtual frame in which it was crossed.
    public var frame: Int
    /// The limit.
    public var limitBytes: Int
    /// True when the figure is where the next asynchronous loads would have taken resident
    /// memory: they were refused before allocating, so memory never reached it.
    public var projected: Bool
    /// What the run measured before it stopped (checkpoints so far, peaks, frames, decodes),
    /// with `stopReason` set to ``description``.
    public var report: RunReport

    /// The stop, with `report.stopReason` set to the message. O(1).
    public init(residentBytes: Int, frame: Int, limitBytes: Int, projected: Bool = false, report: RunReport) {
        self.residentBytes = residentBytes
        self.frame = frame
        self.limitBytes = limitBytes
        self.projected = projected
        self.report = report
        self.report.stopReason = description
    }

    /// `resident memory reached 70.3 MB at frame 12 (limit 64.0 MB)`. O(1).
    public var description: String { Self.message(residentBytes: residentBytes, frame: frame, limitBytes: limitBytes, projected: projected) }

    /// The message for a stop at `residentBytes` in `frame` under `limitBytes` (MB = 10^6
    /// bytes, one decimal): `resident memory reached X at frame N (limit Y)`, or, for loads
    /// refused before they allocated, `resident memory would reach X at frame N with the loads
    /// starting then, which were not started (limit Y)`. O(1).
    public static func message(residentBytes: Int, frame: Int, limitBytes: Int, projected: Bool = false) -> String {
        projected
            ? "resident memory would reach \(SystemIO.NumberText.mb(residentBytes)) MB at frame \(frame) with the loads starting then, which were not started (limit \(SystemIO.NumberText.mb(limitBytes)) MB)"
            : "resident memory reached \(SystemIO.NumberText.mb(residentBytes)) MB at frame \(frame) (limit \(SystemIO.NumberText.mb(limitBytes)) MB)"
    }
}
