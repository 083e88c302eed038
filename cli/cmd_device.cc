// flatbench device: the device profile of a directory (bench/device_profile.h),
// printed as a table and written as JSON (bench/SWEEP_FORMAT.md).
#include <cstdio>
#include <memory>

#include "bench/device_profile.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "common/files.h"
#include "common/sweep_schema.h"

namespace flatbench::cli {
namespace {

struct DeviceArgs {
  std::string dir;
  std::string out;
  double seconds = 60;
  uint64_t file_mib = 1024;
  int rounds = 3;
  bool force = false;
  bool quiet = false;
};

void PrintTable(const nlohmann::json& doc) {
  std::printf(
      "device profile of %s (%s), %s scratch, %lld rounds\n",
      doc[sweep::kProfileDir.name].get<std::string>().c_str(),
      doc[sweep::kProfileFilesystem.name].get<std::string>().c_str(),
      HumanBytes(doc[sweep::kProfileFileBytes.name].get<uint64_t>()).c_str(),
      doc[sweep::kProfileRounds.name].get<long long>());
  std::printf("%5s %7s %12s %23s %10s %10s %10s\n", "depth", "bytes", "reads/s",
              "(rounds low-high)", "p50 us", "p99 us", "p99.9 us");
  for (const auto& c : doc[sweep::kProfileCells.name]) {
    std::printf("%5d %7lld %12.0f %11.0f-%-11.0f %10.1f %10.1f %10.1f\n",
                c[sweep::kCellQueueDepth.name].get<int>(),
                c[sweep::kCellReadBytes.name].get<long long>(),
                c[sweep::kCellReadsPerS.name].get<double>(),
                c[sweep::kCellReadsPerSLow.name].get<double>(),
                c[sweep::kCellReadsPerSHigh.name].get<double>(),
                c[sweep::kCellLatP50.name].get<double>() / 1e3,
                c[sweep::kCellLatP99.name].get<double>() / 1e3,
                c[sweep::kCellLatP999.name].get<double>() / 1e3);
  }
}

Status RunDevice(const DeviceArgs& a) {
  if (!a.out.empty() && !a.force) {
    std::error_code ec;
    if (std::filesystem::exists(a.out, ec)) {
      return Status::RefuseOverwrite(a.out + ": exists (use --force)");
    }
  }
  bench::DeviceProfileOptions o;
  o.dir = a.dir;
  o.file_bytes = a.file_mib << 20;
  o.seconds = a.seconds;
  o.rounds = a.rounds;
  o.progress = !a.quiet;
  FLATBENCH_ASSIGN_OR_RETURN(nlohmann::json doc,
                             bench::MeasureDeviceProfile(o));
  if (!a.out.empty()) {
    FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(a.out, doc.dump(1) + "\n"));
  }
  PrintTable(doc);
  if (!a.out.empty()) std::printf("wrote %s\n", a.out.c_str());
  return Status::Ok();
}

constexpr char kDeviceHelp[] =
    "The device profile of a directory's storage, the input a structural "
    "prediction prices reads with (`flatbench report SWEEP.json "
    "--device-profile P.json`): writes a scratch file of --file-mib in "
    "--dir, reads it at random 4 KiB-aligned offsets with O_DIRECT at queue "
    "depths 1, 8 and 32 (that many threads, one read in flight each) and "
    "read sizes of 4, 8, 12 and 16 KiB, in --rounds interleaved rounds "
    "sharing --seconds, and removes it. Prints reads/s (with the rounds' "
    "range) and latency percentiles; --out writes the profile as JSON "
    "(bench/SWEEP_FORMAT.md, \"Device profile keys\"). Exit 66 for a "
    "missing directory (or a path that is not one), 73 for too little free "
    "disk or an existing --out, "
    "74 when the directory cannot be written or has no direct I/O.";

}  // namespace

Command AddDevice(CLI::App& app) {
  auto a = std::make_shared<DeviceArgs>();
  CLI::App* sub = app.add_subcommand("device", kDeviceHelp);
  sub->add_option("--dir", a->dir, "Directory on the storage to profile")
      ->required();
  sub->add_option("--out", a->out, "Write the profile as JSON here");
  sub->add_option("--seconds", a->seconds,
                  "Measuring time over all cells and rounds")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 86400.0));
  sub->add_option("--file-mib", a->file_mib, "Scratch file size in MiB")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 22));
  sub->add_option("--rounds", a->rounds, "Interleaved rounds per cell")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  sub->add_flag("--force", a->force, "Overwrite --out");
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  return {sub, [a] { return ExitCodeOf(RunDevice(*a)); }};
}

}  // namespace flatbench::cli
