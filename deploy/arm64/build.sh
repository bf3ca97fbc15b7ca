#!/usr/bin/env bash
# Cross-builds the device server for aarch64 Linux: bin tunefarm_server and tunefarm_sandbox,
# with Debian's aarch64-linux-gnu-g++ against Debian's arm64 libraries (deploy/setup.sh
# --arm64 installs them). The sources are the ones Bazel compiles for //rpc_server:
# tunefarm_server and //rpc_server:tunefarm_sandbox, read from the BUILD graph
# (//deploy/arm64:*_sources, see sources.bzl); the protobuf/gRPC code is generated with this
# machine's protoc and grpc_cpp_plugin (generated C++ does not depend on the architecture, only
# on the protobuf version, which must match the arm64 runtime's). Incremental: a generated
# Makefile with header dependencies, run with one job per core.
#
#   deploy/arm64/build.sh [--out DIR] [--sources DIR] [--arch aarch64|armhf]
#
#   --out DIR       where the binaries go (default: build/arm64, or build/armhf)
#   --sources DIR   a directory holding tunefarm_server_sources.txt and
#                   tunefarm_sandbox_sources.txt (default: `bazel build` them; the test passes
#                   its runfiles, since Bazel cannot be run from inside a Bazel test)
#   --arch armhf    32-bit Arm (g++-arm-linux-gnueabihf and :armhf libraries; see README)
#
# Prints `file` and the size of each binary. Exit 1 with the reason when a tool or library is
# missing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
arch=aarch64
out=""
sources=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --sources) sources=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$arch" in
  aarch64|arm64) triple=aarch64-linux-gnu; debarch=arm64 ;;
  armhf) triple=arm-linux-gnueabihf; debarch=armhf ;;
  *) echo "build.sh: --arch is aarch64 or armhf, not '$arch'" >&2; exit 2 ;;
esac
[[ -n "$out" ]] || out="build/$debarch"
mkdir -p "$out"
out=$(cd "$out" && pwd)

fail() { echo "build.sh: $*" >&2; exit 1; }
for tool in "$triple-g++" protoc grpc_cpp_plugin make file; do
  command -v "$tool" >/dev/null || fail "no $tool (run deploy/setup.sh --arm64)"
done
# Generated code must match the runtime it is compiled against.
host_pb=$(dpkg-query -W -f='${Version}' protobuf-compiler 2>/dev/null || true)
target_pb=$(dpkg-query -W -f='${Version}' "libprotobuf-dev:$debarch" 2>/dev/null || true)
[[ -n "$target_pb" ]] || fail "no libprotobuf-dev:$debarch (run deploy/setup.sh --arm64; for armhf see deploy/arm64/README.md)"
[[ "$host_pb" == "$target_pb" ]] ||
  fail "protoc $host_pb differs from libprotobuf-dev:$debarch $target_pb"

if [[ -z "$sources" ]]; then
  bazel build //deploy/arm64:tunefarm_server_sources //deploy/arm64:tunefarm_sandbox_sources >&2
  sources="$repo/bazel-bin/deploy/arm64"
fi
server_list="$sources/tunefarm_server_sources.txt"
sandbox_list="$sources/tunefarm_sandbox_sources.txt"
[[ -f "$server_list" && -f "$sandbox_list" ]] || fail "no source lists in $sources"

# Protobuf and gRPC code for every .proto either binary uses.
# Generated into a scratch directory and copied over only where changed, so that a rebuild
# recompiles only what a changed .proto touches.
gen="$out/gen"
fresh="$out/gen.new"
rm -rf "$fresh"
mkdir -p "$gen" "$fresh"
protos=$(awk '$1 == "proto" { print $2 }' "$server_list" "$sandbox_list" | sort -u)
grpc_protos=$(awk '$1 == "proto" && $3 == "grpc" { print $2 }' "$server_list" "$sandbox_list" | sort -u)
protoc -I. --cpp_out="$fresh" $protos
if [[ -n "$grpc_protos" ]]; then
  protoc -I. --grpc_out="$fresh" --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" $grpc_protos
fi
(cd "$fresh" && find . -type f) | while read -r f; do
  if ! cmp -s "$fresh/$f" "$gen/$f"; then
    mkdir -p "$(dirname "$gen/$f")"
    cp "$fresh/$f" "$gen/$f"
  fi
done
rm -rf "$fresh"

# The sources of one binary, as object files under $out/obj.
objects() {
  local list=$1
  awk '$1 == "cc" { print $2 }' "$list" | sed 's|\.c[cp]*$|.o|; s|^|obj/|'
  awk '$1 == "proto" { sub(/\.proto$/, "", $2); print "obj/gen/" $2 ".pb.o" }' "$list"
  awk '$1 == "proto" && $3 == "grpc" { sub(/\.proto$/, "", $2); print "obj/gen/" $2 ".grpc.pb.o" }' "$list"
}
linkopts() { awk '$1 == "linkopt" { $1 = ""; print }' "$1" | tr '\n' ' '; }

# System libraries: the link options and defines of the //third_party targets the binaries
# depend on (library names are the same on every Debian architecture); the arm64 packages
# must be installed.
syslibs() { awk '$1 == "syslib" { $1 = ""; print }' "$1" | tr '\n' ' '; }
defines=$(awk '$1 == "define" { print "-D" $2 }' "$server_list" "$sandbox_list" | sort -u | tr '\n' ' ')
for lib in libgrpc++.so libprotobuf.so libseccomp.so libcrypto.so libabsl_base.so; do
  [[ -e "/usr/lib/$triple/$lib" ]] || fail "no /usr/lib/$triple/$lib (run deploy/setup.sh --arm64)"
done

# Objects depend on the compile settings too: a change of compiler, flags or defines rebuilds
# everything (the stamp is rewritten only when they change, so a rerun stays incremental).
settings="$triple-g++ -std=c++17 -O2 -fPIC $defines"
if [[ ! -f "$out/flags.stamp" ]] || [[ "$(cat "$out/flags.stamp")" != "$settings" ]]; then
  echo "$settings" > "$out/flags.stamp"
fi

cat > "$out/Makefile" <<MAKE
# Generated by deploy/arm64/build.sh; rerun it rather than editing this.
CXX := $triple-g++
CC := $triple-gcc
CPPFLAGS := -I$repo -I$gen $defines -MMD -MP
CXXFLAGS := -std=c++17 -O2 -fPIC -Wall -Wno-sign-compare
CFLAGS := -O2 -fPIC

SERVER_OBJS := $(objects "$server_list" | tr '\n' ' ')
SANDBOX_OBJS := $(objects "$sandbox_list" | tr '\n' ' ')

all: tunefarm_server tunefarm_sandbox

tunefarm_server: \$(SERVER_OBJS)
	\$(CXX) -o \$@ \$^ $(linkopts "$server_list") -Wl,--as-needed $(syslibs "$server_list")

tunefarm_sandbox: \$(SANDBOX_OBJS)
	\$(CXX) -o \$@ \$^ $(linkopts "$sandbox_list") -Wl,--as-needed $(syslibs "$sandbox_list")

obj/gen/%.o: $gen/%.cc flags.stamp
	@mkdir -p \$(dir \$@)
	\$(CXX) \$(CPPFLAGS) \$(CXXFLAGS) -c \$< -o \$@

obj/%.o: $repo/%.cc flags.stamp
	@mkdir -p \$(dir \$@)
	\$(CXX) \$(CPPFLAGS) \$(CXXFLAGS) -c \$< -o \$@

obj/%.o: $repo/%.c flags.stamp
	@mkdir -p \$(dir \$@)
	\$(CC) \$(CPPFLAGS) \$(CFLAGS) -c \$< -o \$@

-include \$(shell find obj -name '*.d' 2>/dev/null)
MAKE

start=$(date +%s)
if ! make -C "$out" -j"$(nproc)" --no-print-directory all >"$out/make.log" 2>&1; then
  tail -40 "$out/make.log" >&2
  fail "compiling failed (all of it in $out/make.log)"
fi
echo "build.sh: built for $triple in $(( $(date +%s) - start ))s into $out"
for b in tunefarm_server tunefarm_sandbox; do
  echo "$(file -b "$out/$b" | cut -d, -f1-2) $(stat -c %s "$out/$b") bytes: $out/$b"
done
