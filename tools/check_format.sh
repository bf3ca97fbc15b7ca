#!/usr/bin/env bash
# Fails when a tracked C++ or proto file differs from what .clang-format asks for.
# Usage: tools/check_format.sh [--fix]
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
  '*.cc' '*.h' '*.proto' | while read -r f; do [[ -f "$f" ]] && echo "$f"; done)
[[ ${#files[@]} -gt 0 ]] || exit 0
if [[ "${1:-}" == "--fix" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "format: ${#bad[@]} file(s) not formatted per .clang-format (run tools/check_format.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format: ${#files[@]} files ok"
