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

# `client_release FOLDER NAME TOOL FILE...`: the benchmarks' client. FOLDER/client, a package
# named NAME with one executable NAME (made once, kept between runs so a second run rebuilds
# only what changed), gets FILE... as its only sources and is built in release (with
# --static-swift-stdlib when STATIC=1); on failure it prints the errors and "TOOL: the
# benchmark does not build", and exits 1. The binary is FOLDER/client/.build/release/NAME.
client_release() {
  local folder=$1 name=$2 tool=$3
  shift 3
  if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH=/opt/swift/usr/bin:$PATH
  fi
  mkdir -p "$folder"
  if [ ! -e "$folder/client/Package.swift" ]; then
    rm -rf "$folder/client" "$folder/retention"
    client_package "$folder" "$name" "$name"
  fi
  rm -f "$folder/client/Sources/$name"/*.swift
  cp "$@" "$folder/client/Sources/$name/"
  local flags=(-c release)
  [ "${STATIC:-0}" = 1 ] && flags+=(--static-swift-stdlib)
  if ! (cd "$folder/client" && swift build "${flags[@]}" > "$folder/build.log" 2>&1); then
    grep -E -A3 "error:" "$folder/build.log" >&2 || tail -n 20 "$folder/build.log" >&2
    echo "$tool: the benchmark does not build" >&2
    exit 1
  fi
}

# `client_run SCRATCH TOOL PRODUCT SECONDS`: runs the built client's PRODUCT for at most SECONDS,
# its output in SCRATCH/output.txt and SCRATCH/stderr.txt; when it fails, prints both and
# "TOOL: the program exited with status N" and returns 1.
client_run() {
  local scratch=$1 tool=$2 product=$3 seconds=$4 status=0
  (cd "$scratch/client" && timeout "$seconds" swift run --skip-build "$product") > "$scratch/output.txt" 2> "$scratch/stderr.txt" || status=$?
  if [ "$status" -ne 0 ]; then
    cat "$scratch/output.txt" "$scratch/stderr.txt" >&2
    echo "$tool: the program exited with status $status" >&2
    return 1
  fi
}
