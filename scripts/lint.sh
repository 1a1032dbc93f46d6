#!/usr/bin/env bash
# Checks that the C++ sources are clang-format clean and clang-tidy clean (configurations in the
# repository root). Not part of `make test`: the verdicts depend on the tools' versions.
#   scripts/lint.sh            check both
#   scripts/lint.sh --fix      rewrite files with clang-format, then run clang-tidy
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
fix=0
[ "${1:-}" = "--fix" ] && fix=1

for tool in clang-format clang-tidy; do
  command -v $tool >/dev/null || { echo "lint: $tool not found (apt-get install clang-format clang-tidy)" >&2; exit 1; }
done

mapfile -t files < <(git ls-files '*.cpp' '*.hpp' | grep -v '^tests/fuzz/')
status=0
if [ $fix -eq 1 ]; then
  clang-format -i "${files[@]}"
else
  bad=$(for f in "${files[@]}"; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
  if [ -n "$bad" ]; then
    echo "lint: not clang-format clean (run scripts/lint.sh --fix):" >&2
    echo "$bad" >&2
    status=1
  fi
fi

if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint: $build/compile_commands.json missing; build first (make build)" >&2
  exit 1
fi
mapfile -t sources < <(git ls-files 'models/*.cpp' 'backends/*.cpp' 'sim/*.cpp')
out=$(clang-tidy -p "$build" --quiet "${sources[@]}" 2>/dev/null | grep -E "warning:|error:")
if [ -n "$out" ]; then
  echo "$out" >&2
  echo "lint: clang-tidy reported $(echo "$out" | wc -l) findings" >&2
  status=1
fi
[ $status -eq 0 ] && echo "lint: clean"
exit $status
