#pragma once
// What a whole run (gen, then bench) needs beyond what a dataset directory
// holds already, against what the host has.

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

struct RunNeeds {
  uint64_t disk = 0;        // Backends not yet built, plus device scratch.
  uint64_t free_disk = 0;   // FreeBytes(dir).
  uint64_t ram = 0;         // The builds at once, plus 1 GiB for the process.
  uint64_t free_ram = 0;    // MemAvailableBytes(); 0 if unknown.
  unsigned jobs = 1;        // gen --jobs.
  unsigned concurrent = 1;  // Backends gen builds at once (ConcurrentBuilds).
};
// How many of `pending` backends gen builds at once with `jobs` threads:
// at most `jobs` and `pending`, and as many as `free_ram` (0: unknown, no
// limit) holds at dataset::EstimateGeneratorBytes(spec, jobs) each plus
// 1 GiB for the process; at least 1.
unsigned ConcurrentBuilds(const dataset::Spec& spec, unsigned jobs,
                          size_t pending, uint64_t free_ram);
// The device cells' scratch file: the largest store's size, at most 4 GiB.
uint64_t DeviceScratchBytes(const dataset::Spec& spec,
                            const std::vector<std::string>& stores);
// Disk a run of `stores` needs from an empty directory: each store's
// estimate (dataset::EstimateDiskBytes) plus the device scratch.
uint64_t RunDiskBytes(const dataset::Spec& spec,
                      const std::vector<std::string>& stores);
// A disk figure as README and RESEARCH.md give it and the refusal prints
// it: decimal gigabytes rounded up, then GiB ("468 GB (435.3 GiB)"); below
// 1 GB, HumanBytes alone.
std::string DiskFigure(uint64_t bytes);

// Disk counts every backend in `backends` that `dir` does not hold complete
// for `spec` (dataset::EstimateDiskBytes), plus room for the device cells'
// scratch file (the largest backend's size, at most 4 GiB). RAM counts
// ConcurrentBuilds(spec, jobs, backends not built, free RAM) builds of
// dataset::EstimateGeneratorBytes(spec, jobs) each, plus 1 GiB.
RunNeeds EstimateRunNeeds(const dataset::Spec& spec, const std::string& dir,
                          const std::vector<std::string>& backends,
                          unsigned jobs = 1);
// kRefuseOverwrite, with the figures, when the disk holding `dir` or the
// memory falls short of `needs` (an unknown amount of memory passes).
Status CheckRunNeeds(const RunNeeds& needs, const dataset::Spec& spec,
                     const std::string& dir);

}  // namespace flatbench::datagen
