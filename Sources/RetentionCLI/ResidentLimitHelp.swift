import ArgumentParser

/// The help of the abort limit on `run`, `compare` and `soak`.
enum ResidentLimitHelp {
    /// What the limit does and its default: `scope` names what stops, `status` its exit
    /// status, `share` how the default is shared out. O(1).
    static func text(_ scope: String, status: String = "1", default share: String = "") -> ArgumentHelp {
        ArgumentHelp("Stop \(scope) when its resident memory goes over this size (like 512MB, 2GiB), with \"resident memory reached X at frame N (limit Y)\" and exit status \(status), keeping what was measured. Default: 75 % of the machine's memory or of the cgroup's limit, whichever is smaller\(share).",
                     valueName: "size")
    }
}
