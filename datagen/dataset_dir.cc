#include "datagen/dataset_dir.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/files.h"
#include "common/host_id.h"
#include "datagen/dataset_files.h"
#include "dataset/names.h"

namespace flatbench::datagen {
namespace fs = std::filesystem;
using nlohmann::json;

json StreamJson(const dataset::StreamSpec& s) {
  return {{"blocks", s.blocks},
          {"seed", s.seed},
          {"changes_per_block", s.changes_per_block},
          {"account_updates", s.account_updates},
          {"new_accounts", s.new_accounts},
          {"slot_updates", s.slot_updates},
          {"new_slots", s.new_slots},
          {"slot_deletes", s.slot_deletes},
          {"hot_share", s.hot_share},
          {"hot_accounts", s.hot_accounts}};
}

dataset::StreamSpec StreamFromJson(const json& j) {
  dataset::StreamSpec s;
  s.blocks = j.at("blocks").get<uint64_t>();
  s.seed = j.at("seed").get<uint64_t>();
  s.changes_per_block = j.at("changes_per_block").get<uint32_t>();
  s.account_updates = j.at("account_updates").get<uint32_t>();
  s.new_accounts = j.at("new_accounts").get<uint32_t>();
  s.slot_updates = j.at("slot_updates").get<uint32_t>();
  s.new_slots = j.at("new_slots").get<uint32_t>();
  s.slot_deletes = j.at("slot_deletes").get<uint32_t>();
  s.hot_share = j.at("hot_share").get<uint32_t>();
  s.hot_accounts = j.at("hot_accounts").get<uint32_t>();
  return s;
}

namespace {

constexpr char kIdentityFormat[] = "flatbench-dataset/1";

json SpecJson(const dataset::Spec& spec) {
  json j = {{"scale", spec.scale},
            {"accounts", spec.accounts},
            {"slots_per_account", spec.slots_per_account},
            {"seed", spec.seed},
            {"generator_version", dataset::kGeneratorVersion}};
  if (spec.stream.blocks > 0) j["stream"] = StreamJson(spec.stream);
  return j;
}

}  // namespace

Status WriteIdentity(const std::string& dir, const dataset::Spec& spec,
                     const std::string& fingerprint) {
  json j = {{"format", kIdentityFormat},
            {"spec", SpecJson(spec)},
            {"canonical", spec.Canonical()},
            {"fingerprint", fingerprint}};
  return WriteFileAtomic(dir + "/" + kIdentityFile, j.dump(2) + "\n");
}

std::string DescribeSpec(const dataset::Spec& s) {
  return s.scale + " (" + std::to_string(s.accounts) + " accounts x " +
         std::to_string(s.slots_per_account) + " slots, seed " +
         std::to_string(s.seed) + ")";
}

bool IsDatasetFile(const std::string& name) {
  if (name == kIdentityFile || name == std::string(kIdentityFile) + ".tmp") {
    return true;
  }
  for (std::string_view b : dataset::kStores) {
    std::string s(b);
    for (const char* suffix :
         {"", ".complete", ".complete.tmp", ".aging", ".aging.tmp", ".merge",
          ".delta", ".delta.tmp"}) {
      if (name == s + suffix) return true;
    }
  }
  return false;
}

GenRecord GenRecordNow(unsigned jobs, unsigned builds_at_once) {
  GenRecord r;
  r.jobs = jobs;
  r.builds_at_once = builds_at_once;
  r.cores = std::max(1u, std::thread::hardware_concurrency());
  r.host = MachineIdHash();
  r.started = std::chrono::duration<double>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  return r;
}

Status WriteMarker(const Dataset& ds, const BackendBuild& b) {
  json j = {{"backend", b.backend},
            {"fingerprint", b.fingerprint},
            {"build_seconds", b.build_seconds},
            {"disk_bytes", b.disk_bytes},
            {"account_pairs", b.pairs[0]},
            {"storage_pairs", b.pairs[1]}};
  if (!b.shape.empty()) j["shape"] = json::parse(b.shape);
  if (b.gen.jobs > 0) {
    j["gen"] = {{"jobs", b.gen.jobs},
                {"builds_at_once", b.gen.builds_at_once},
                {"cores", b.gen.cores},
                {"host", b.gen.host},
                {"started", b.gen.started}};
  }
  return WriteFileAtomic(ds.MarkerPath(b.backend), j.dump(2) + "\n");
}

std::string Dataset::BackendDir(const std::string& backend) const {
  return dir_ + "/" + dataset::StoreOf(backend);
}
std::string Dataset::MarkerPath(const std::string& backend) const {
  return dir_ + "/" + dataset::StoreOf(backend) + ".complete";
}

Result<Dataset> Dataset::Open(const std::string& dir) {
  std::error_code ec;
  bool exists = false, is_dir = false;
  FLATBENCH_RETURN_IF_ERROR(StatDir(dir, &exists, &is_dir));
  if (!exists) return Status::MissingInput(dir + ": no such dataset directory");
  if (!is_dir) return Status::MissingInput(dir + ": not a directory");
  FLATBENCH_RETURN_IF_ERROR(CheckReadable(dir));
  std::string path = dir + "/" + kIdentityFile;
  if (!fs::exists(path, ec)) {
    if (ec) return Status::IOError(path + ": " + ec.message());
    return Status::MissingInput(path + ": no dataset identity file");
  }
  FLATBENCH_ASSIGN_OR_RETURN(const std::string text, ReadSmallFile(path));
  Dataset ds;
  ds.dir_ = dir;
  try {
    json j = json::parse(text);
    if (j.at("format") != kIdentityFormat) {
      return Status::Corruption(path + ": unknown identity format");
    }
    const json& s = j.at("spec");
    ds.spec_.scale = s.at("scale").get<std::string>();
    ds.spec_.accounts = s.at("accounts").get<uint64_t>();
    ds.spec_.slots_per_account = s.at("slots_per_account").get<uint32_t>();
    ds.spec_.seed = s.at("seed").get<uint64_t>();
    if (s.contains("stream")) {
      ds.spec_.stream = StreamFromJson(s.at("stream"));
      Status valid = dataset::ValidateStream(ds.spec_.stream);
      if (!valid.ok()) {
        return Status::Corruption(path + ": stream: " + valid.message());
      }
    }
    if (s.at("generator_version").get<int>() != dataset::kGeneratorVersion) {
      return Status::Corruption(
          path + ": made by generator version " +
          std::to_string(s.at("generator_version").get<int>()) +
          ", this build is version " +
          std::to_string(dataset::kGeneratorVersion));
    }
    ds.fingerprint_ = j.at("fingerprint").get<std::string>();
  } catch (const json::exception& e) {
    return Status::Corruption(path + ": malformed identity file: " + e.what());
  }
  return ds;
}

Result<BackendBuild> ReadMarker(const std::string& path) {
  FLATBENCH_ASSIGN_OR_RETURN(const std::string text, ReadSmallFile(path));
  BackendBuild b;
  try {
    json j = json::parse(text);
    b.backend = j.at("backend").get<std::string>();
    b.fingerprint = j.at("fingerprint").get<std::string>();
    b.build_seconds = j.at("build_seconds").get<double>();
    b.disk_bytes = j.at("disk_bytes").get<uint64_t>();
    b.pairs[0] = j.at("account_pairs").get<uint64_t>();
    b.pairs[1] = j.at("storage_pairs").get<uint64_t>();
    if (j.contains("shape")) b.shape = j.at("shape").dump();
    if (j.contains("gen")) {
      const json& g = j.at("gen");
      b.gen.jobs = g.at("jobs").get<unsigned>();
      b.gen.builds_at_once = g.at("builds_at_once").get<unsigned>();
      b.gen.cores = g.at("cores").get<unsigned>();
      b.gen.host = g.at("host").get<std::string>();
      b.gen.started = g.at("started").get<double>();
    }
  } catch (const json::exception& e) {
    return Status::Corruption(path + ": malformed marker: " + e.what());
  }
  return b;
}

Result<BackendBuild> Dataset::Build(const std::string& backend) const {
  std::string path = MarkerPath(backend);
  std::error_code ec;
  const std::string aging = dir_ + "/" + dataset::StoreOf(backend) + ".aging";
  if (fs::exists(aging, ec)) {
    return Status::MissingInput(
        dir_ + ": backend '" + backend + "' is being aged (" + aging +
        "); finish with flatbench age --dir " + dir_ + " --blocks " +
        std::to_string(spec_.stream.blocks) + " and the same stream options");
  }
  if (!fs::exists(path, ec)) {
    return Status::MissingInput(dir_ + ": backend '" + backend +
                                "' is not built (no " + backend + ".complete)");
  }
  FLATBENCH_ASSIGN_OR_RETURN(BackendBuild b, ReadMarker(path));
  if (b.fingerprint != fingerprint_) return FingerprintMismatch(path, b);
  return b;
}

// Which file holds the wrong fingerprint: the marker, when another
// backend's marker agrees with dataset.json; else dataset.json, which every
// marker then contradicts (each was written from its build's own stream).
Status Dataset::FingerprintMismatch(const std::string& marker,
                                    const BackendBuild& b) const {
  const std::string identity = dir_ + "/" + kIdentityFile;
  for (const std::string& other : CompleteBackends()) {
    if (MarkerPath(other) == marker) continue;
    auto text = ReadSmallFile(MarkerPath(other));
    if (!text.ok()) continue;
    json j = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("fingerprint", "") == fingerprint_) {
      return Status::Corruption(marker + ": fingerprint " + b.fingerprint +
                                " differs from " + fingerprint_ + " in " +
                                identity + " and " + MarkerPath(other));
    }
  }
  return Status::Corruption(identity + ": fingerprint " + fingerprint_ +
                            " differs from " + b.fingerprint + ", which " +
                            marker + " recorded when " + b.backend +
                            " was built from the generator's stream");
}

std::vector<std::string> Dataset::CompleteBackends() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    std::string name = e.path().filename().string();
    const std::string suffix = ".complete";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name.substr(0, name.size() - suffix.size()));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace flatbench::datagen
