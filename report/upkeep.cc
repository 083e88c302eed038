#include "report/upkeep.h"

#include <cmath>
#include <vector>

#include "dataset/estimate.h"

namespace flatbench::report {
namespace {

using nlohmann::json;

// The text after " name=" in a spec, up to the next space; empty if none.
std::string SpecField(const std::string& spec, const std::string& name) {
  const std::string token = " " + name + "=";
  const size_t at = spec.find(token);
  if (at == std::string::npos) return "";
  const size_t start = at + token.size();
  const size_t end = spec.find(' ', start);
  return spec.substr(start, end == std::string::npos ? end : end - start);
}

// "a/b/c" as numbers; empty when a part is not a plain decimal number.
std::vector<uint32_t> Parts(const std::string& text) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      return {};
    }
    out.push_back(static_cast<uint32_t>(std::stoul(part)));
    start = end + 1;
  }
  return out;
}

// Expected distinct keys among n draws over N keys, a share h of the draws
// over a hot set of H of them: each hot key is drawn with probability
// h / H + (1 - h) / N per draw, each other key (1 - h) / N.
double DistinctDraws(double keys, double hot_keys, double hot_share,
                     double draws) {
  if (keys <= 0 || draws <= 0) return 0;
  const double cold_p = (1 - hot_share) / keys;
  if (hot_share <= 0 || hot_keys <= 0) return -keys * std::expm1(-draws / keys);
  const double hot_p = hot_share / hot_keys + cold_p;
  return -hot_keys * std::expm1(-draws * hot_p) -
         (keys - hot_keys) * std::expm1(-draws * cold_p);
}

}  // namespace

double ShapeNumber(const json& shape, const std::string& key) {
  if (!shape.contains(key)) return NAN;
  const json& v = shape.at(key);
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      return std::stod(v.get<std::string>());
    } catch (...) {
      return NAN;
    }
  }
  return NAN;
}

std::optional<dataset::StreamSpec> StreamOfSpec(const std::string& spec) {
  const std::vector<uint32_t> changes = Parts(SpecField(spec, "changes"));
  const std::vector<uint32_t> shares = Parts(SpecField(spec, "shares"));
  const std::vector<uint32_t> hot = Parts(SpecField(spec, "hot"));
  if (changes.size() != 1 || shares.size() != 5 || hot.size() != 2) {
    return std::nullopt;
  }
  dataset::StreamSpec s;
  s.changes_per_block = changes[0];
  s.account_updates = shares[0];
  s.new_accounts = shares[1];
  s.slot_updates = shares[2];
  s.new_slots = shares[3];
  s.slot_deletes = shares[4];
  s.hot_share = hot[0];
  s.hot_accounts = hot[1];
  if (!dataset::ValidateStream(s).ok()) return std::nullopt;
  return s;
}

double DistinctKeys(const dataset::Spec& at, const dataset::StreamSpec& stream,
                    double blocks) {
  const double per_mille = blocks * stream.changes_per_block / 1000.0;
  const double accounts = static_cast<double>(at.accounts);
  const double slots = static_cast<double>(at.storage_slots());
  const double hot_accounts =
      std::max(1.0, std::floor(accounts * stream.hot_accounts / 1000.0));
  const double hot_slots = hot_accounts * at.slots_per_account;
  const double h = stream.hot_share / 1000.0;
  return per_mille * (stream.new_accounts + stream.new_slots) +
         DistinctDraws(accounts, hot_accounts, h,
                       per_mille * stream.account_updates) +
         DistinctDraws(slots, hot_slots, h,
                       per_mille * (stream.slot_updates + stream.slot_deletes));
}

double UpkeepInputs::LogicalBytesPerSecond() const {
  return full.stream.changes_per_block * bytes_per_change / kSecondsPerBlock;
}

std::optional<UpkeepInputs> UpkeepInputsOf(const std::string& spec,
                                           const json& arena_shape,
                                           double drive_tbw, std::string* why) {
  const std::optional<dataset::StreamSpec> stream = StreamOfSpec(spec);
  if (!stream) {
    *why = "the dataset's spec names no stream of blocks";
    return std::nullopt;
  }
  const double blocks = ShapeNumber(arena_shape, "blocks") -
                        ShapeNumber(arena_shape, "from_blocks");
  const double logical = ShapeNumber(arena_shape, "logical_bytes");
  UpkeepInputs in;
  in.merge_pairs_per_s = ShapeNumber(arena_shape, "engine.merge_pairs_per_s");
  if (!(blocks > 0 && logical > 0 && in.merge_pairs_per_s > 0)) {
    *why = "the arena's aging recorded no blocks, changed bytes or merge rate";
    return std::nullopt;
  }
  in.full = dataset::MakeSpec("full", 0, 0, 0).value();
  in.full.stream = *stream;
  in.full.stream.blocks = 0;
  in.base_pairs =
      static_cast<double>(in.full.accounts + in.full.storage_slots());
  // The size the full-scale plan expects of the arena, without the margin
  // the plan adds for the disk it asks for.
  in.base_bytes = static_cast<double>(dataset::RawBytes(in.full)) *
                  dataset::FiguresOf("arena").disk_factor;
  in.bytes_per_change = logical / (blocks * stream->changes_per_block);
  in.device_write_bytes_per_s =
      ShapeNumber(arena_shape, "device_write_bytes_per_s");
  in.drive_tbw = drive_tbw;
  return in;
}

double DriveYears(double tbw, double bytes_per_s) {
  constexpr double kSecondsPerYear = 365.25 * 86400;
  return tbw * 1e12 / bytes_per_s / kSecondsPerYear;
}

ArenaUpkeep ArenaUpkeepAt(const UpkeepInputs& in, double blocks) {
  ArenaUpkeep u;
  const double device =
      in.device_write_bytes_per_s > 0 ? in.device_write_bytes_per_s : NAN;
  u.blocks = blocks;
  u.chain_s = blocks * kSecondsPerBlock;
  u.delta_keys = DistinctKeys(in.full, in.full.stream, blocks);
  u.delta_bytes = u.delta_keys * in.bytes_per_change;
  u.log_bytes = blocks * in.full.stream.changes_per_block * in.bytes_per_change;
  u.merge_read_bytes = in.base_bytes + u.delta_bytes;
  u.merge_write_bytes = in.base_bytes;
  u.build_s = in.base_pairs / in.merge_pairs_per_s;
  u.write_s = in.base_bytes / device;
  u.device_binds = u.write_s > u.build_s;
  u.merge_s = u.device_binds ? u.write_s : u.build_s;
  u.keeps_up = u.merge_s <= u.chain_s;
  u.write_amp = (u.merge_write_bytes + u.log_bytes) / u.log_bytes;
  u.bytes_per_s = (u.merge_write_bytes + u.log_bytes) / u.chain_s;
  u.device_share = u.bytes_per_s / device;
  u.drive_years = DriveYears(in.drive_tbw, u.bytes_per_s);
  return u;
}

StoreUpkeep StoreUpkeepAt(const UpkeepInputs& in, double write_amp) {
  StoreUpkeep s;
  s.write_amp = write_amp;
  s.bytes_per_s = write_amp * in.LogicalBytesPerSecond();
  s.device_share = in.device_write_bytes_per_s > 0
                       ? s.bytes_per_s / in.device_write_bytes_per_s
                       : NAN;
  s.drive_years = DriveYears(in.drive_tbw, s.bytes_per_s);
  return s;
}

double BreakEvenBlocks(const UpkeepInputs& in, double write_amp) {
  if (!(write_amp > 1)) return NAN;
  return in.base_bytes / (in.full.stream.changes_per_block *
                          in.bytes_per_change * (write_amp - 1));
}

}  // namespace flatbench::report
