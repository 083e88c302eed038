#!/usr/bin/env bash
# ramdisk.sh: a fast block device on any Linux host, for measuring flatbench
# where a 4 KiB read's device latency is small next to its CPU time.
#
#   ./ramdisk.sh up SIZE [MOUNT]   make it: SIZE like 8G or 4096M
#   ./ramdisk.sh down [MOUNT]      unmount it, detach it, free its memory
#   ./ramdisk.sh status [MOUNT]    say whether it is up, and its size and use
#
# The device is an ext4 file system on a loop device whose backing file lies
# in /dev/shm (tmpfs). Reads of a dataset in MOUNT go through the block layer
# and the loop driver to the backing file's pages in RAM:
#   - eviction works as on a disk: drop_caches and fadvise drop the loop
#     device's page cache, so every cold read reaches the block layer;
#   - the backing pages stay in memory (tmpfs), so a read costs a copy and
#     the loop driver's work, about 9 us at depth 1 on a 2-core VM;
#   - that work runs on the host's own cores, in the loop device's kernel
#     worker, so it competes with the readers for CPU. It is a device whose
#     latency is small next to CPU, not a model of any particular NVMe drive
#     (RESEARCH.md, "The fast device").
# The backing file takes SIZE of RAM (tmpfs is not swapped out here), so `up`
# refuses a SIZE that would leave less than a quarter of RAM, or more than
# /dev/shm holds.
#
# MOUNT defaults to /mnt/flatbench-fast. Run flatbench on it as on any disk:
#   ./ramdisk.sh up 12G
#   build/cli/flatbench device --dir /mnt/flatbench-fast --out fast.json
#   ./flatbench.sh gonogo --dir /mnt/flatbench-fast/data --device-profile fast.json
#   ./ramdisk.sh down
#
# Exit codes: 0 done; 64 usage error; 69 no loop device or tool (the loop
# module is not loaded and cannot be, or losetup/mkfs.ext4 is missing);
# 73 not enough free memory for SIZE, or MOUNT is taken by something else;
# 77 not root.
set -euo pipefail

MOUNT_DEFAULT=/mnt/flatbench-fast
SHM=/dev/shm

die() {
  local code=$1
  shift
  echo "ramdisk.sh: $*" >&2
  exit "$code"
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

# The backing file of the device mounted at MOUNT: one per mount point.
backing_of() { echo "$SHM/flatbench-ramdisk$(echo "$1" | tr '/' '_').img"; }

# SIZE (like 8G, 512M, 1T or bytes) in bytes.
parse_size() {
  local s=$1 n unit
  [[ $s =~ ^([0-9]+)([KMGTkmgt]?)[iI]?[bB]?$ ]] ||
    die 64 "SIZE '$s' is not a size (examples: 8G, 4096M)"
  n=${BASH_REMATCH[1]}
  unit=${BASH_REMATCH[2]^^}
  case $unit in
    K) echo $((n << 10)) ;;
    M) echo $((n << 20)) ;;
    G) echo $((n << 30)) ;;
    T) echo $((n << 40)) ;;
    *) echo "$n" ;;
  esac
}

need_root() {
  [ "$(id -u)" -eq 0 ] || die 77 "needs root (it attaches a loop device and mounts it)"
}

need_tools() {
  local t
  for t in losetup mkfs.ext4 mount umount findmnt; do
    command -v "$t" >/dev/null || die 69 "'$t' is missing (Debian: util-linux, e2fsprogs, mount)"
  done
  if [ ! -e /dev/loop-control ]; then
    modprobe loop 2>/dev/null || true
    [ -e /dev/loop-control ] ||
      die 69 "no loop device support: /dev/loop-control is absent and 'modprobe loop' did not add it"
  fi
}

# The loop device whose backing file is $1, if any.
loop_of() { losetup -j "$1" -O NAME -n 2>/dev/null | head -n1; }

cmd_up() {
  [ $# -ge 1 ] && [ $# -le 2 ] || die 64 "usage: ramdisk.sh up SIZE [MOUNT]"
  local bytes mount=${2:-$MOUNT_DEFAULT}
  bytes=$(parse_size "$1")
  [ "$bytes" -ge $((64 << 20)) ] || die 64 "SIZE '$1' is below 64M: too small for ext4 and a dataset"
  need_root
  need_tools
  local backing
  backing=$(backing_of "$mount")
  if [ -e "$backing" ]; then
    die 73 "$backing exists: the device at $mount is already up (ramdisk.sh status $mount; ramdisk.sh down $mount)"
  fi
  if findmnt -n "$mount" >/dev/null 2>&1; then
    die 73 "$mount is already a mount point of something else; choose another MOUNT"
  fi
  if [ -d "$mount" ] && [ -n "$(ls -A "$mount" 2>/dev/null)" ]; then
    die 73 "$mount is a folder that is not empty; choose another MOUNT"
  fi
  # Free memory: MemAvailable, less a quarter of RAM kept for the readers,
  # their page cache and the build; and /dev/shm's own free space.
  local avail_kb total_kb shm_free
  avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
  total_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
  local spare=$(((avail_kb - total_kb / 4) * 1024))
  if [ "$bytes" -gt "$spare" ]; then
    die 73 "SIZE $1 ($((bytes >> 20)) MiB) does not fit: $((avail_kb >> 10)) MiB available, and a quarter of RAM ($((total_kb >> 12)) MiB) stays free; at most $(((spare > 0 ? spare : 0) >> 20)) MiB"
  fi
  shm_free=$(df -B1 --output=avail "$SHM" | tail -n1 | tr -d ' ')
  if [ "$bytes" -gt "$shm_free" ]; then
    die 73 "SIZE $1 does not fit in $SHM: $((shm_free >> 20)) MiB free there"
  fi
  # Undo whatever was made if a later step fails.
  local loop="" mounted=0
  cleanup() {
    [ "$mounted" -eq 1 ] && umount "$mount" 2>/dev/null
    [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
    rm -f "$backing"
  }
  trap cleanup ERR
  # fallocate reserves the pages now, so a full /dev/shm shows here, not as
  # an I/O error in the middle of a benchmark.
  fallocate -l "$bytes" "$backing" || die 73 "cannot reserve $((bytes >> 20)) MiB in $SHM"
  loop=$(losetup --find --show "$backing") || die 69 "losetup found no free loop device"
  # No lazy init: the file system is whole before the first measurement,
  # and no kernel thread writes behind it. No discard: mkfs would punch the
  # backing file's pages out again through the loop driver.
  # One inode per 4 KiB: the file store (one file per key) needs 600,000
  # at smoke, more than ext4's default ratio gives a device of this size.
  mkfs.ext4 -q -F -i 4096 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$loop"
  mkdir -p "$mount"
  mount -o noatime,nodiscard "$loop" "$mount"
  mounted=1
  trap - ERR
  echo "ramdisk.sh: $mount is up: ext4 on $loop over $backing, $((bytes >> 20)) MiB of RAM"
  echo "ramdisk.sh: profile it with: flatbench device --dir $mount --out fast.json"
}

cmd_down() {
  [ $# -le 1 ] || die 64 "usage: ramdisk.sh down [MOUNT]"
  local mount=${1:-$MOUNT_DEFAULT}
  need_root
  local backing loop
  backing=$(backing_of "$mount")
  [ -e "$backing" ] || die 64 "no device of ramdisk.sh at $mount ($backing is absent)"
  if findmnt -n "$mount" >/dev/null 2>&1; then
    umount "$mount" || die 73 "cannot unmount $mount: is a process still using it? (fuser -vm $mount)"
  fi
  loop=$(loop_of "$backing")
  [ -z "$loop" ] || losetup -d "$loop"
  rm -f "$backing"
  rmdir "$mount" 2>/dev/null || true
  echo "ramdisk.sh: $mount is down; its $SHM memory is freed"
}

cmd_status() {
  [ $# -le 1 ] || die 64 "usage: ramdisk.sh status [MOUNT]"
  local mount=${1:-$MOUNT_DEFAULT} backing loop
  backing=$(backing_of "$mount")
  if [ ! -e "$backing" ]; then
    echo "ramdisk.sh: no device at $mount"
    return 0
  fi
  loop=$(loop_of "$backing")
  echo "ramdisk.sh: $mount: backing $backing ($(du -h --apparent-size "$backing" | cut -f1)), loop ${loop:-none}"
  findmnt -n "$mount" >/dev/null 2>&1 && df -h "$mount" | tail -n1
  return 0
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  status) shift; cmd_status "$@" ;;
  -h | --help | help) usage ;;
  *) usage >&2; exit 64 ;;
esac
