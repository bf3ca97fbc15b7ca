#!/bin/sh
# runtime_packages.sh BINARY...: the Debian packages that hold the shared libraries the
# binaries load (as ldd resolves them), one per line, sorted; plus the packages tunefarm opens
# or reads at run time without linking them. The container build (Containerfile) installs
# exactly these in its runtime stage; tests/k8s_manifests_test.sh runs it on the binaries the
# test suite builds. Fails when a library is missing or belongs to no package.
set -eu
[ "$#" -gt 0 ] || { echo "usage: $0 BINARY..." >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for bin in "$@"; do
  libs=$(ldd "$bin") || { echo "runtime_packages: ldd $bin failed" >&2; exit 1; }
  if printf '%s\n' "$libs" | grep -q 'not found'; then
    echo "runtime_packages: $bin: missing libraries:" >&2
    printf '%s\n' "$libs" | grep 'not found' >&2
    exit 1
  fi
  for lib in $(printf '%s\n' "$libs" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    # The package of the file itself, not of a symlink to it (a -dev package's symlink in
    # LLVM's RUNPATH, /usr/lib/llvm-16/lib, is found first; without it the loader finds the
    # library in the default path). Debian 12 merged /lib into /usr/lib, but dpkg records each
    # file under one of the two.
    real=$(readlink -f "$lib")
    pkg=""
    for path in "$real" "${real#/usr}" "$lib" "/usr$lib" "${lib#/usr}"; do
      pkg=$(dpkg-query -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$pkg" ] && break
    done
    [ -n "$pkg" ] || { echo "runtime_packages: $lib ($bin) belongs to no package" >&2; exit 1; }
    echo "$pkg" >> "$out"
  done
done
# Not linked, used at run time: libgomp (opened by kernels' OpenMP loops and linked into each
# kernel library) and libgcc.a (linked into each kernel library by the in-process linker,
# compiler/codegen/linker.cc).
echo libgomp1 >> "$out"
echo libgcc-12-dev >> "$out"
sort -u "$out"
