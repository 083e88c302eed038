#pragma once
// A dataset directory: its identity, and one folder plus one completion
// marker per backend.
//
//   DIR/dataset.json        spec and (once a backend is complete) fingerprint
//   DIR/<backend>/          that backend's files
//   DIR/<backend>.complete  written atomically after the backend's loader
//                           finished; holds the fingerprint and build figures
//
// A backend folder without its marker is the remains of an interrupted
// build of this same dataset: a failed or interrupted `gen` removes it on
// the way out, and the next `gen` removes any it finds (a killed one).
//
// A read variant "BACKEND+HOW" (e.g. "arena+pread") has no files of its
// own: BackendDir, MarkerPath and Build answer for BACKEND.

#include <csignal>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/status.h"
#include "datagen/stream.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

// How gen built a store, for the plan's calibration (datagen/
// gen_calibration.h): its jobs, the builds that ran at once, the host's
// hardware threads and identity (common/host_id.h), and its start.
struct GenRecord {
  unsigned jobs = 0;  // 0: not recorded (a marker written before this was).
  unsigned builds_at_once = 0;
  unsigned cores = 0;
  std::string host;
  double started = 0;  // Unix seconds.
};

// A build starting now on this host with `jobs` jobs, `builds_at_once`
// builds running at once.
GenRecord GenRecordNow(unsigned jobs, unsigned builds_at_once);

struct BackendBuild {
  std::string backend;
  std::string fingerprint;  // 16 hex digits.
  double build_seconds = 0;
  uint64_t disk_bytes = 0;
  uint64_t pairs[kNumTables] = {0, 0};
  // The store's shape as JSON text: empty for a bulk load of a fresh spec;
  // {"kind": "fresh", "blocks": N} for gen of an aged spec; "aged" with the
  // upkeep figures for a store aged by its write path (datagen/age.h).
  std::string shape;
  GenRecord gen;  // How gen built it (jobs 0 when age wrote the marker).
};

class Dataset {
 public:
  // Reads DIR/dataset.json. kMissingInput when DIR or the identity file is
  // missing; kCorruption when the identity file is malformed.
  static Result<Dataset> Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const dataset::Spec& spec() const { return spec_; }
  // Empty until some backend completed.
  const std::string& fingerprint() const { return fingerprint_; }
  std::string BackendDir(const std::string& backend) const;
  std::string MarkerPath(const std::string& backend) const;
  // The completion record, or kMissingInput if the backend is not complete
  // or is being aged (DIR/<store>.aging).
  // kCorruption when its fingerprint differs from dataset.json's, naming
  // the file at fault: the marker when another marker agrees with
  // dataset.json, else dataset.json.
  Result<BackendBuild> Build(const std::string& backend) const;
  // Backends with a completion marker, in name order.
  std::vector<std::string> CompleteBackends() const;

 private:
  Status FingerprintMismatch(const std::string& marker,
                             const BackendBuild& b) const;

  std::string dir_;
  dataset::Spec spec_;
  std::string fingerprint_;
};

// The stream's parameters as dataset.json and the markers hold them; the
// reader throws nlohmann::json::exception on a missing or mistyped field.
nlohmann::json StreamJson(const dataset::StreamSpec& stream);
dataset::StreamSpec StreamFromJson(const nlohmann::json& j);

// DIR/dataset.json, the dataset's identity.
inline constexpr char kIdentityFile[] = "dataset.json";
// Whether `name`, directly under a dataset directory, is one of the
// dataset's own files (identity, backend folders, markers, their .tmp).
bool IsDatasetFile(const std::string& name);
// Atomically writes DIR/dataset.json: `spec` and the stream's fingerprint
// (empty until a backend is complete).
Status WriteIdentity(const std::string& dir, const dataset::Spec& spec,
                     const std::string& fingerprint);
// Reads a completion marker as it is (no fingerprint check).
Result<BackendBuild> ReadMarker(const std::string& path);
// Atomically writes `b`'s completion marker into `ds`.
Status WriteMarker(const Dataset& ds, const BackendBuild& b);
// "smoke (100000 accounts x 5 slots, seed 1)", for messages.
std::string DescribeSpec(const dataset::Spec& spec);

// A loader for `backend` into `backend_dir`, which may use `jobs` threads
// (at least 1) besides the caller's; it is driven from one thread.
using LoaderFactory = std::function<Result<std::unique_ptr<BulkLoader>>(
    const std::string& backend, const std::string& backend_dir,
    const dataset::Spec& spec, unsigned jobs)>;

struct GenOptions {
  std::string dir;
  dataset::Spec spec;
  std::vector<std::string> backends;
  bool rebuild = false;  // Replace a dataset whose identity differs.
  bool progress = true;  // Progress lines on stderr.
  // Threads (gen --jobs; 0 counts as 1). Up to `jobs` backends are built at
  // once, as many as the memory allows (ConcurrentBuilds, datagen/needs.h),
  // and each build makes the stream and loads with `jobs` threads. The
  // output does not depend on it: the same pairs in the same order, the
  // same fingerprint, byte-identical arena files.
  unsigned jobs = 1;
  // Read between pairs; once non-zero (a signal handler sets it), the build
  // in progress stops, its partial folder is removed and Generate returns
  // kIOError. A backend already finishing is completed first. The first
  // build that fails stops the others (their partial folders are removed
  // too) and its error is the one returned.
  const volatile std::sig_atomic_t* stop = nullptr;
};

// Builds every requested backend that is not already complete, resuming an
// interrupted build. Refuses (kRefuseOverwrite) to touch a directory that
// holds another dataset or foreign files unless `rebuild` is set, and then
// deletes only the dataset's own files; refuses too while another gen holds
// the directory's lock. A directory it may not read is kIOError "permission
// denied".
Result<std::vector<BackendBuild>> Generate(const GenOptions& options,
                                           const LoaderFactory& factory);

}  // namespace flatbench::datagen
