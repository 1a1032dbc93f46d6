#!/usr/bin/env bash
# Checks that the C++ sources are clang-format clean and clang-tidy clean (configurations in the
# repository root).
#   scripts/lint.sh            check both (clang-tidy needs a build: make build)
#   scripts/lint.sh --format   check clang-format only; no build needed. `make test` runs this as
#                              the CTest test "lint: clang-format" (exit 77, reported as skipped,
#                              when clang-format is not installed)
#   scripts/lint.sh --fix      rewrite files with clang-format, then run clang-tidy
# The tree is formatted with Debian 12's clang-format 14; another version may disagree. clang-tidy
# is not part of `make test`: its verdicts change more from version to version.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${BUILD_DIR:-build}
mode=both
case "${1:-}" in
  "") ;;
  --format) mode=format ;;
  --fix) mode=fix ;;
  *) echo "usage: scripts/lint.sh [--format | --fix]" >&2; exit 2 ;;
esac

tools=(clang-format clang-tidy)
[ $mode = format ] && tools=(clang-format)
for tool in "${tools[@]}"; do
  if ! command -v "$tool" >/dev/null; then
    echo "lint: $tool not found (apt-get install ${tools[*]})" >&2
    [ $mode = format ] && exit 77
    exit 1
  fi
done

# The tracked C++ sources; every .cpp/.hpp of the source folders when this is not a git checkout.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' | grep -v '^tests/fuzz/')
else
  mapfile -t files < <(find models backends sim tests bench -name '*.cpp' -o -name '*.hpp' |
                       grep -v '^tests/fuzz/' | LC_ALL=C sort)
fi
status=0
if [ $mode = fix ]; then
  clang-format -i "${files[@]}"
else
  if ! report=$(clang-format --dry-run -Werror "${files[@]}" 2>&1); then
    echo "lint: not clang-format clean (run scripts/lint.sh --fix):" >&2
    bad=$(sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error: .*/\1/p' <<<"$report" | uniq)
    echo "${bad:-$report}" >&2  # the files, or clang-format's own complaint
    status=1
  fi
fi
if [ $mode = format ]; then
  [ $status -eq 0 ] && echo "lint: clang-format clean (${#files[@]} files)"
  exit $status
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
