# client-package.sh: sourced by the tools that build a client of the libraries (check-readme-snippets.sh,
# check-old-client.sh). `client_package SCRATCH NAME TARGET` makes SCRATCH/client, a package named NAME
# with one executable TARGET that depends on Imaging, Retention, MemoryProbe and DiskCache of the
# checkout at $root, linked as SCRATCH/retention (a path dependency's identity is its folder's
# name), and an empty SCRATCH/client/Sources/TARGET for its sources. `client_build SCRATCH TOOL WHAT`
# builds it (log in SCRATCH/build.log); on failure it prints the errors and "TOOL: WHAT" and
# returns 1.
client_package() {
  local scratch=$1 name=$2 target=$3
  ln -s "$root" "$scratch/retention"
  mkdir -p "$scratch/client/Sources/$target"
  cat > "$scratch/client/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "$name",
    dependencies: [.package(path: "../retention")],
    targets: [
        .executableTarget(name: "$target", dependencies: [
            .product(name: "Imaging", package: "retention"),
            .product(name: "Retention", package: "retention"),
            .product(name: "MemoryProbe", package: "retention"),
            .product(name: "DiskCache", package: "retention"),
        ]),
    ]
)
MANIFEST
}

client_build() {
  local scratch=$1 tool=$2 what=$3
  if ! (cd "$scratch/client" && swift build > "$scratch/build.log" 2>&1); then
    grep -E -A3 "error:" "$scratch/build.log" >&2 || tail -n 20 "$scratch/build.log" >&2
    echo "$tool: $what" >&2
    return 1
  fi
}
