/// The control groups this process belongs to, as `/proc/self/cgroup` lists them: the
/// cgroup v2 path (the `0::PATH` line) and, on v1 or hybrid systems, each controller's path
/// (`4:memory:/docker/abc`). MemoryProbe reads memory limits below these paths and
/// ``Machine`` the CPU quota. The parser is pure and tested on fixed text.
public struct ControlGroup: Sendable, Hashable {
    /// The cgroup v2 path, or nil.
    public var v2: String?
    /// The cgroup v1 path of each controller (`memory`, `cpu`, …).
    public var v1: [String: String]

    /// Paths as given. O(1).
    public init(v2: String? = nil, v1: [String: String] = [:]) {
        self.v2 = v2
        self.v1 = v1
    }

    /// Parses the text of `/proc/self/cgroup`. Lines of other shapes are skipped; an empty or
    /// relative path counts as none; the first line for a controller wins. O(length).
    public static func parse(_ text: String) -> ControlGroup {
        var group = ControlGroup()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            guard path.hasPrefix("/") else { continue }
            if fields[0] == "0" && fields[1].isEmpty {
                group.v2 = group.v2 ?? path
            } else {
                for controller in fields[1].split(separator: ",") where group.v1[String(controller)] == nil {
                    group.v1[String(controller)] = path
                }
            }
        }
        return group
    }

    /// This process's groups, read from `root`/proc/self/cgroup (`/`; a folder of fixture
    /// files in tests); no groups when the file cannot be read. One small read.
    public static func read(root: String = "/") -> ControlGroup {
        guard let data = try? FileIO.readAll(Self.base(root) + "/proc/self/cgroup", limit: 1 << 20) else { return ControlGroup() }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// `path` and each folder above it, ending with the root as `""`: `/a/b` gives `/a/b`,
    /// `/a`, `""`. Empty for nil. O(depth).
    public static func ancestors(of path: String?) -> [String] {
        guard let path else { return [] }
        var folders: [String] = []
        var components = path.split(separator: "/").map(String.init)
        while !components.isEmpty {
            folders.append("/" + components.joined(separator: "/"))
            components.removeLast()
        }
        return folders + [""]
    }

    /// `root` without a trailing slash (`""` for `/`). O(1).
    static func base(_ root: String) -> String {
        root.hasSuffix("/") ? String(root.dropLast()) : root
    }
}
