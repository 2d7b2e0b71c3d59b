import Lab

/// How the tool spells the terms Lab's messages name: its own flags and commands. Installed
/// once at start (``install()``), so Lab's errors and reasons name the flags the user typed,
/// and renaming a flag here changes every message with it.
enum CLITerms {
    /// Every term, as the tool's flags and commands spell it.
    static let spellings: [LabTerm: String] = [
        .values: "--values", .vary: "--vary", .holdUpTo: "--hold-up-to", .shard: "--shard", .shards: "--shards",
        .costsPath: "--costs", .exportJSON: "--export-json", .exportCSV: "--export-csv", .junit: "--junit",
        .baseline: "--baseline", .duration: "--duration", .iterations: "--iterations", .untilVerdict: "--until-verdict",
        .warmup: "--warmup", .maxResident: "--max-resident", .maxGrowth: "--max-growth", .timeout: "--timeout",
        .strategies: "--strategies", .maxPlaceholders: "--max-placeholders", .maxHitches: "--max-hitches",
        .maxDecodes: "--max-decodes", .maxDisk: "--max-disk", .maxWaitP95: "--max-wait-p95",
        .measureCosts: "`retention costs SCENARIO -o FILE`", .costsOutput: "-o",
    ]

    /// Gives Lab the tool's spellings. Call before any job. O(terms).
    static func install() { LabTerm.useSpellings(spellings) }
}
