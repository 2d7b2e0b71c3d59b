# scratch.sh: sourced (after `root` is set) by the tools that build in a temporary folder
# (check-flag-rename.sh and the client checks). Puts /opt/swift/usr/bin on PATH when `swift` is
# not on it, and makes $scratch, a new folder from mktemp -d that is removed on exit unless
# KEEP_SCRATCH is set (to look at what a failed check left). It removes only that folder.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
scratch=$(mktemp -d)
trap '[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$scratch"' EXIT
