#!/usr/bin/env bash
# flatbench.sh: the two commands of README.md.
#
#   ./flatbench.sh gonogo [flatbench gonogo flags]   build, benchmark, report
#   ./flatbench.sh test                               build and run the tests
#
# Both install the Debian packages that are missing (as root, or via sudo),
# then configure build/ with Meson (release, -Dwerror=true) and compile:
# `gonogo` only the flatbench binary and what it links, `test` everything.
# `test` runs every test of three trees: build/ (release, every backend),
# build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer, every optional
# backend disabled: the arena engine, datagen, bench, report and CLI) and
# build-tsan/ (ThreadSanitizer, arena only: the tests of suite `threads`).
# Each sanitizer tree builds only what its tests run.
# The release tree is built first and its tests run first: a functional
# failure shows before the sanitizer tests. The sanitizer trees are built
# beside the release tests, which wait on I/O for much of their time (and
# are stopped if one fails). The sanitizer trees leave out the optional
# backends because their end-to-end tests (a PostgreSQL server, 60,000
# files per tiny fs store) run for most of an hour under ASan on two cores.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(
  meson ninja-build pkg-config g++
  librocksdb-dev liblmdb-dev lmdb-utils rocksdb-tools
  libxxhash-dev libzstd-dev libbenchmark-dev catch2 libcli11-dev
  nlohmann-json3-dev libcrypto++-dev libsqlite3-dev
  postgresql libpq-dev liburing-dev
)

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "flatbench.sh: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# setup DIR [meson options...]: configure once; later runs reuse it.
# Every tree is a unity build with one unity file per target: the sources of
# a library or test executable are compiled as one translation unit, so the
# large headers they share (nlohmann-json, CLI11, Catch2) are parsed and
# their inline code generated once per target instead of once per file.
# That more than halves the compile on two cores. It also means two files of
# one target must not define the same name in their anonymous namespaces.
setup() {
  local dir=$1
  shift
  local unity=(-Dunity=on -Dunity_size=100000)
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "${unity[@]}" "$@" >/dev/null
  else
    meson setup "$dir" "${unity[@]}" "$@"
  fi
}

# The release tree: one configuration for both commands, so `test` after
# `gonogo` (or the reverse) reuses what the other compiled.
setup_release() { setup build --buildtype=release -Dwerror=true; }

# `test` builds every target of the release tree; `gonogo` only the binary
# it runs and what that links (no test, no micro-benchmark).
build_release() {
  setup_release
  meson compile -C build
}
build_flatbench() {
  setup_release
  meson compile -C build cli/flatbench
}

jobs() { nproc 2>/dev/null || echo 2; }
# Tests at once: one more than the cores, as the tests wait on their child
# processes, on fsync and on evicted pages often enough that as many as the
# cores leave one idle (the release tests alone, two at a time, kept 1.4 of
# two cores busy).
test_jobs() { echo $(($(jobs) + 1)); }

# -D<option>=disabled for every feature option of meson_options.txt: each one
# switches an optional backend (keep `type: 'feature'` on the option's first
# line), so a new backend is left out of the arena-only trees by itself.
no_optional_backends() {
  # io_uring is the arena's batch reads, not a backend: kept where present.
  sed -n "/^option('io_uring'/!s/^option('\([a-z0-9_]*\)', *type: *'feature'.*/-D\1=disabled/p" \
    meson_options.txt
}

# test_targets DIR [SUITE]: the targets (by name) the tests of SUITE (of
# every suite when none is given) need: their executables and the targets
# they depend on (the flatbench binaries they run). A sanitizer tree builds
# only these: no micro-benchmark, and no test executable that its tests do
# not run (a test registered only where optional backends are built).
test_targets() {
  python3 - "$1" "${2:-}" <<'PY'
import json, os, subprocess, sys
tree, suite = sys.argv[1], sys.argv[2]
def introspect(what):
    out = subprocess.check_output(["meson", "introspect", tree, what])
    return json.loads(out)
targets = introspect("--targets")
name_of_id = {t["id"]: t["name"] for t in targets}
name_of_file = {f: t["name"] for t in targets for f in t["filename"]}
names = set()
for t in introspect("--tests"):
    if suite and not any(s.split(":")[-1] == suite for s in t["suite"]):
        continue
    names.add(name_of_file.get(t["cmd"][0], os.path.basename(t["cmd"][0])))
    names.update(name_of_id[i] for i in t.get("depends", []) if i in name_of_id)
print("\n".join(sorted(names)))
PY
}

# Wall time of each step of `test` (a build, tests, or both), printed
# as a table when the script exits, also when a step failed: the failed
# step is named and the steps after it are listed as not run.
STEPS=("packages" "release build (build/)"
  "release tests, sanitizer builds beside" "asan+ubsan build, the rest"
  "asan+ubsan tests, tsan build beside" "tsan build, the rest"
  "tsan threads tests (build-tsan/)")
STEP_SECONDS=()
STEP_START=0
begin_step() { STEP_START=$SECONDS; }
end_step() { STEP_SECONDS+=($((SECONDS - STEP_START))); }
print_times() {
  local rc=$? total=0 i
  stop_sanitizer_builds
  echo
  echo "flatbench.sh test: wall time per step"
  for i in "${!STEPS[@]}"; do
    if [ "$i" -lt "${#STEP_SECONDS[@]}" ]; then
      printf '  %-40s %5ss  ok\n' "${STEPS[$i]}" "${STEP_SECONDS[$i]}"
      total=$((total + STEP_SECONDS[i]))
    elif [ "$i" -eq "${#STEP_SECONDS[@]}" ] && [ "$rc" -ne 0 ]; then
      printf '  %-40s %5ss  FAILED (exit %s)\n' "${STEPS[$i]}" \
        $((SECONDS - STEP_START)) "$rc"
      total=$((total + SECONDS - STEP_START))
    else
      printf '  %-40s %6s  not run\n' "${STEPS[$i]}" "-"
    fi
  done
  printf '  %-40s %5ss\n' "total" "$total"
  print_slowest_tests
  return "$rc"
}

# The trees whose `meson test` ran (or started) in this run: meson writes
# each finished test to DIR/meson-logs/testlog.json as it goes, so the
# slowest tests are known also when a step failed. A tree is added just
# before its tests start, so a log left by an earlier run is never read.
TESTED_TREES=()
run_tests() {
  local tree=$1
  shift
  TESTED_TREES+=("$tree")
  rm -f "$tree/meson-logs/testlog.json"
  meson test -C "$tree" "$@"
}

# The ten slowest tests of this run, over every tree tested.
print_slowest_tests() {
  [ ${#TESTED_TREES[@]} -gt 0 ] || return 0
  python3 - "${TESTED_TREES[@]}" <<'PY'
import json, os, sys
rows = []
for tree in sys.argv[1:]:
    path = os.path.join(tree, "meson-logs", "testlog.json")
    if not os.path.exists(path):
        continue
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            rows.append((float(t.get("duration", 0)), tree, t["name"],
                         t.get("result", "?")))
rows.sort(key=lambda r: -r[0])
print()
print("flatbench.sh test: the ten slowest tests")
for seconds, tree, name, result in rows[:10]:
    print(f"  {seconds:6.1f}s  {tree + '/':<12} {name:<28} {result}")
PY
}

# The sanitizer trees' builds, in a session of their own: build-asan/'s
# beside the release tests, then build-tsan/'s beside the ASan tests, so
# that each tree's tests start as soon as its own build ends.
# start_sanitizer_builds N ASAN_TARGET... TSAN_TARGET... (the first N
# targets are build-asan/'s, the rest build-tsan/'s). The session touches
# ASAN_BUILT once build-asan/ is built. Their output goes to
# SANITIZER_LOG, shown when they fail.
SANITIZER_LOG=build-asan/sanitizer-builds.log
ASAN_BUILT=build-asan/sanitizer-builds.asan-done
SANITIZER_PID=
start_sanitizer_builds() {
  local n=$1
  shift
  rm -f "$ASAN_BUILT"
  setsid bash -c 'n=$1 marker=$2; shift 2
    meson compile -C build-asan "${@:1:n}" && touch "$marker" &&
      meson compile -C build-tsan "${@:n+1}"' _ "$n" "$ASAN_BUILT" "$@" \
    >"$SANITIZER_LOG" 2>&1 &
  SANITIZER_PID=$!
  echo "flatbench.sh: building build-asan/ and build-tsan/ beside the" \
    "tests (log: $SANITIZER_LOG)"
}
# Returns once build-asan/ is built (the session goes on with build-tsan/),
# or, when the session ended without building it, with its failure.
wait_asan_build() {
  while [ ! -e "$ASAN_BUILT" ] && kill -0 "$SANITIZER_PID" 2>/dev/null; do
    sleep 1
  done
  [ -e "$ASAN_BUILT" ] || wait_sanitizer_builds
}
wait_sanitizer_builds() {
  local rc=0
  wait "$SANITIZER_PID" || rc=$?
  SANITIZER_PID=
  if [ "$rc" -ne 0 ]; then
    tail -n 60 "$SANITIZER_LOG" >&2
    echo "flatbench.sh: the sanitizer builds failed (exit $rc; log:" \
      "$SANITIZER_LOG)" >&2
    return "$rc"
  fi
}
# On any exit while they run (a failed release test, a signal): stop them.
stop_sanitizer_builds() {
  if [ -n "$SANITIZER_PID" ]; then
    kill -- -"$SANITIZER_PID" 2>/dev/null || true
    wait "$SANITIZER_PID" 2>/dev/null || true
  fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  test)
    trap print_times EXIT
    begin_step
    install_packages
    end_step
    begin_step
    build_release
    end_step
    begin_step
    mapfile -t arena_only < <(no_optional_backends)
    setup build-asan --buildtype=debug -Doptimization=g -Dwerror=true \
      -Db_sanitize=address,undefined -Db_lundef=false "${arena_only[@]}"
    setup build-tsan --buildtype=debug -Dwerror=true -Db_sanitize=thread \
      -Db_lundef=false "${arena_only[@]}"
    # ASan builds what its tests run; TSan what the tests of suite `threads`
    # run.
    mapfile -t asan_targets < <(test_targets build-asan)
    mapfile -t tsan_targets < <(test_targets build-tsan threads)
    start_sanitizer_builds "${#asan_targets[@]}" "${asan_targets[@]}" \
      "${tsan_targets[@]}"
    run_tests build --print-errorlogs --num-processes "$(test_jobs)"
    end_step
    begin_step
    wait_asan_build
    end_step
    begin_step
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      ASAN_OPTIONS=detect_leaks=1 \
      run_tests build-asan --no-rebuild --print-errorlogs \
      --num-processes "$(test_jobs)" --timeout-multiplier 3
    end_step
    begin_step
    wait_sanitizer_builds
    end_step
    begin_step
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
      run_tests build-tsan --no-rebuild --suite threads --print-errorlogs \
      --num-processes "$(test_jobs)" --timeout-multiplier 3
    end_step
    ;;
  gonogo)
    install_packages
    build_flatbench
    exec ./build/cli/flatbench gonogo "$@"
    ;;
  *)
    echo "usage: $0 test | gonogo [--scale S] [--dir D] [--out DIR]" >&2
    exit 64
    ;;
esac
