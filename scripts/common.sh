# Shared by dist.sh and install.sh, which source it first (POSIX sh).
# Sets root (the repository) and version (the workspace's, from Cargo.toml).
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)

# one_argument NAME "$@": the script takes exactly one non-empty argument,
# NAME in its usage line; otherwise the usage goes to stderr and it exits 2.
one_argument() {
  usage_name=$1
  shift
  if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 $usage_name" >&2
    exit 2
  fi
}
