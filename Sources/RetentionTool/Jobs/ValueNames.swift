import Imaging
import Lab
import Retention

// The value types a job's inputs are made of, named here so that the command line, which maps
// flags to jobs, needs this module and no module below it. Each is the lower module's own type
// (a typealias, not a copy): a caller that imports both modules sees one type.

/// A size in bytes, parsed from `64MB`, `2GiB`, `4096B` (Retention's `ByteSize`).
public typealias ByteSize = Retention.ByteSize
/// A soak's growth-rate limit, per iteration or per hour (Lab's `GrowthRate`).
public typealias GrowthRate = Lab.GrowthRate
/// One `--set KEY=VALUE` setting (Lab's `SweepSetting`).
public typealias SweepSetting = Lab.SweepSetting
/// One of N slices of a batch or a run list, for array jobs (Lab's `Shard`).
public typealias Shard = Lab.Shard
/// What `compare` and `sweep` share: repeats, jobs, slice, exports, costs (Lab's `ComparisonSettings`).
public typealias ChildRunSettings = Lab.ComparisonSettings
/// A comparison's typed request to one child process: a strategy run or a cost-table
/// calibration, sent as JSON to the hidden `child-run` subcommand (Lab's `ChildRunRequest`).
public typealias ChildRunRequest = Lab.ChildRunRequest
/// Where a job's progress and notes go (Lab's `ProgressSink`).
public typealias JobSink = Lab.ProgressSink
/// How a thumbnail fits its box: fit, fill or exact (Imaging's `Thumbnailer.Mode`).
public typealias ThumbnailMode = Thumbnailer.Mode
/// How a thumbnail is resampled: fast or good (Imaging's `Thumbnailer.Quality`).
public typealias ThumbnailQuality = Thumbnailer.Quality
/// zlib's matching for written PNGs: rle or standard (Imaging's `PNGEncoder.Strategy`).
public typealias ZlibStrategy = PNGEncoder.Strategy
