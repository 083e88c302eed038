#!/usr/bin/env bash
# ramdisk_test.sh RAMDISK_SH: ramdisk.sh's refusals and exit codes, and,
# where this host gives root and the loop driver, a small device made,
# written, read back, refused a second time and removed. Everything it
# makes lies under a temporary folder of its own, and is removed on exit.
set -u
script=$1
tmp=$(mktemp -d)
mount=$tmp/mnt
cleanup() {
  if [ -e "/dev/shm/flatbench-ramdisk$(echo "$mount" | tr '/' '_').img" ]; then
    "$script" down "$mount" >/dev/null 2>&1
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# expect CODE [TEXT] -- ARGS...: ramdisk.sh ARGS exits CODE, and its output
# holds TEXT when TEXT is given.
expect() {
  local want=$1 text=$2
  shift 3
  out=$("$script" "$@" 2>&1)
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "ramdisk.sh $* exited $rc, want $want: $out"
  [ -z "$text" ] || [[ $out == *"$text"* ]] ||
    fail "ramdisk.sh $*: output lacks '$text': $out"
  echo "ok: ramdisk.sh $* -> $rc"
}

expect 64 "Exit codes" --
expect 64 "" -- bogus
expect 0 "Exit codes" -- --help
expect 64 "usage: ramdisk.sh up SIZE" -- up
expect 64 "is not a size" -- up 12X "$mount"
expect 64 "below 64M" -- up 1M "$mount"
expect 64 "usage: ramdisk.sh status" -- status a b

if [ "$(id -u)" -ne 0 ]; then
  expect 77 "needs root" -- up 64M "$mount"
  expect 77 "needs root" -- down "$mount"
  echo "not root: the device itself is not made here"
  exit 0
fi

expect 0 "no device at $mount" -- status "$mount"
expect 64 "no device of ramdisk.sh at $mount" -- down "$mount"
expect 73 "does not fit" -- up 100T "$mount"
mkdir -p "$mount"
touch "$mount/kept"
expect 73 "not empty" -- up 64M "$mount"
[ -e "$mount/kept" ] || fail "a refused up removed a file of $mount"
rm -f "$mount/kept"

if [ ! -e /dev/loop-control ] && ! modprobe loop 2>/dev/null; then
  echo "no loop driver: the device itself is not made here"
  exit 0
fi
# A host whose loop driver refuses a device (a container without the
# devices): 69, the documented refusal, and nothing left behind.
out=$("$script" up 64M "$mount" 2>&1)
rc=$?
if [ "$rc" -eq 69 ]; then
  [ -e "/dev/shm/flatbench-ramdisk$(echo "$mount" | tr '/' '_').img" ] &&
    fail "a refused up left its backing file: $out"
  echo "no loop device here ($out): the device itself is not made here"
  exit 0
fi
[ "$rc" -eq 0 ] && [[ $out == *"is up"* ]] ||
  fail "ramdisk.sh up 64M $mount exited $rc, want 0: $out"
echo "ok: ramdisk.sh up 64M $mount -> 0"
[ "$(findmnt -n -o FSTYPE "$mount")" = ext4 ] || fail "$mount is not ext4"
head -c $((4 << 20)) /dev/urandom >"$tmp/data"
cp "$tmp/data" "$mount/data"
sync
# Read back past the page cache, through the loop device (no cache drop:
# other tests may be reading warm beside this one).
dd if="$mount/data" iflag=direct bs=1M status=none | cmp -s - "$tmp/data" ||
  fail "a file read back from $mount with O_DIRECT differs"
expect 0 "loop" -- status "$mount"
expect 73 "already up" -- up 64M "$mount"
expect 0 "is down" -- down "$mount"
findmnt -n "$mount" >/dev/null && fail "$mount is still mounted"
[ -e "/dev/shm/flatbench-ramdisk$(echo "$mount" | tr '/' '_').img" ] &&
  fail "the backing file is still in /dev/shm"
expect 64 "no device" -- down "$mount"
echo "PASS"
