// The arena's upkeep as a choice at full scale: per merge interval, the
// delta, the merge, the write amplification, the device's bandwidth and a
// drive's years, modelled from an aged run's measured rates (report/upkeep.h,
// RESEARCH.md section 11), beside the other stores' measured amplification.
#include <cmath>

#include "common/results_schema.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/upkeep.h"

namespace flatbench::report {
namespace {

using nlohmann::json;

bool AgedStore(const std::string& backend, const json& shape) {
  return shape.value("kind", "") == "aged" &&
         backend.find('+') == std::string::npos;
}

// Seconds of chain in the unit a reader thinks in: "20 min", "3.3 h",
// "1 day", "4.8 days", "2.1 years".
std::string ChainTime(double s) {
  if (!std::isfinite(s)) return "–";
  if (s < 3600) return Sig(s / 60, 2) + " min";
  if (s < 86400) return Sig(s / 3600, 2) + " h";
  const double days = s / 86400;
  if (days < 365.25) return Sig(days, 3) + (days == 1 ? " day" : " days");
  return Sig(days / 365.25, 3) + " years";
}

// Large figures as counts ("7,932"), small ones with their decimals.
std::string Amp(double v) { return v >= 100 ? Count(v) : Fixed(v, 2); }
std::string Years(double v) { return v >= 100 ? Count(v) : Sig(v, 3); }

std::vector<TableCell> ArenaRow(const ArenaUpkeep& u, bool own) {
  return {{"arena: merge every " + Count(u.blocks) + " blocks (" +
           ChainTime(u.chain_s) + (own ? ", this run's interval" : "") + ")"},
          {Count(u.delta_keys)},
          {Bytes(u.delta_bytes)},
          {Bytes(u.log_bytes)},
          {Bytes(u.merge_read_bytes)},
          {Bytes(u.merge_write_bytes)},
          {Seconds(u.merge_s) + (u.keeps_up ? "" : ", behind the chain"),
           u.keeps_up ? TableCell::Style::kPlain : TableCell::Style::kFail},
          {Amp(u.write_amp)},
          {Percent(u.device_share)},
          {Years(u.drive_years)}};
}

std::vector<TableCell> StoreRow(const std::string& backend,
                                const StoreUpkeep& s) {
  return {{backend + ": as aged in this run (measured)"},
          {"–"},
          {"–"},
          {"–"},
          {"–"},
          {"–"},
          {"–"},
          {Amp(s.write_amp)},
          {Percent(s.device_share)},
          {Years(s.drive_years)}};
}

std::string Lead(const UpkeepInputs& in, const json& arena) {
  const ArenaUpkeep one = ArenaUpkeepAt(in, kUpkeepIntervals[0]);
  std::string out =
      "Modelled, not measured: the arena's upkeep at full scale (" +
      Count(in.base_pairs) + " pairs; a base of " + Bytes(in.base_bytes) +
      ", the full scale's estimated arena size) for a merge every M blocks "
      "(12 s of chain each), from this run's measured rates: " +
      Sig(in.bytes_per_change, 4) + " bytes per change (keys and values, " +
      Count(in.full.stream.changes_per_block) + " changes per block), " +
      Count(in.merge_pairs_per_s) + " merge pairs/s (" +
      (arena.contains("jobs") ? arena.at("jobs").dump() : std::string("?")) +
      " jobs)";
  if (!(in.device_write_bytes_per_s > 0)) {
    return out +
           "; the device's write rate was not measured, so a merge "
           "is priced at the merge rate alone and the device's share "
           "is not priced.";
  }
  return out + " and the device's " + Bytes(in.device_write_bytes_per_s) +
         "/s sequential write. A merge reads the base and the delta and "
         "writes a new base: it builds in " +
         Seconds(one.build_s) + " at the merge rate and writes in " +
         Seconds(one.write_s) + " at the device's; the two overlap, so " +
         (one.device_binds ? "the device's write rate" : "the merge rate") +
         " binds.";
}

// What each column means, one item each.
std::vector<std::string> Terms(const UpkeepInputs& in) {
  return {
      "Delta keys: the distinct keys an interval's changes touch (a key "
      "changed twice is held once), modelled from the stream's shares: new "
      "keys are new; updates and deletions draw over the live keys" +
          std::string(in.full.stream.hot_share > 0 ? ", partly over its hot set"
                                                   : ", uniformly") +
          ".",
      "Delta memory: those keys with their values, at this run's bytes per "
      "change, before any index.",
      "Log: every change appended, as a write-ahead log is (a key changed "
      "twice is logged twice): changes × bytes per change.",
      "Merge reads and writes: the base and the delta in, a new base out; "
      "merge time: the slower of building and writing.",
      "Write amp: the merge's bytes written plus the log's, over the "
      "interval's changed bytes.",
      "Device write share: bytes written per second of chain over the "
      "device's measured write rate.",
      "Drive years: how long a drive rated " + Count(in.drive_tbw) +
          " TB written (--drive-tbw; default a 2 TB Samsung 990 PRO's "
          "rating) lasts at that rate."};
}

// Where the arena's write amplification meets each other store's.
std::vector<std::string> BreakEvens(
    const UpkeepInputs& in,
    const std::vector<std::pair<std::string, StoreUpkeep>>& stores) {
  std::vector<std::string> out;
  for (const auto& [backend, s] : stores) {
    const double m = BreakEvenBlocks(in, s.write_amp);
    if (!std::isfinite(m)) {
      out.push_back("The arena's write amplification exceeds " + backend +
                    "'s " + Amp(s.write_amp) + " at every interval.");
      continue;
    }
    const ArenaUpkeep u = ArenaUpkeepAt(in, m);
    out.push_back("The arena's write amplification equals " + backend + "'s " +
                  Amp(s.write_amp) + " at a merge every " + Count(m) +
                  " blocks (" + ChainTime(u.chain_s) +
                  " of chain), where its "
                  "delta holds " +
                  Count(u.delta_keys) + " keys, " + Bytes(u.delta_bytes) +
                  " in memory and " + Bytes(u.log_bytes) + " of log.");
  }
  return out;
}

}  // namespace

Section UpkeepChoiceSection(const ResultSet& r, double drive_tbw) {
  Section s{"The upkeep as a choice, at full scale (modelled)", {}};
  const auto arena = r.shapes.find("arena");
  if (arena == r.shapes.end() || !AgedStore("arena", arena->second)) return s;
  std::string why;
  const std::optional<UpkeepInputs> in =
      UpkeepInputsOf(r.Context(results::kSpec), arena->second, drive_tbw, &why);
  if (!in) {
    s.blocks.push_back(Paragraph("Not priced: " + why + "."));
    return s;
  }
  for (Block& b : Prose(Lead(*in, arena->second))) s.blocks.push_back(b);
  s.blocks.push_back(List(Terms(*in)));
  Table t;
  t.header = {"upkeep",     "delta keys",  "delta memory",
              "log",        "merge reads", "merge writes",
              "merge time", "write amp",   "device write share",
              "drive years"};
  t.right_aligned = {false, true, true, true, true,
                     true,  true, true, true, true};
  const double own = ShapeNumber(arena->second, "merge_every");
  bool own_listed = false;
  for (const uint64_t m : kUpkeepIntervals) {
    const bool is_own = static_cast<double>(m) == own;
    own_listed = own_listed || is_own;
    t.rows.push_back(
        ArenaRow(ArenaUpkeepAt(*in, static_cast<double>(m)), is_own));
  }
  if (own > 0 && !own_listed) {
    t.rows.push_back(ArenaRow(ArenaUpkeepAt(*in, own), true));
  }
  std::vector<std::pair<std::string, StoreUpkeep>> stores;
  for (const auto& [backend, shape] : r.shapes) {
    const double amp = ShapeNumber(shape, "write_amp");
    if (backend == "arena" || !AgedStore(backend, shape) ||
        !std::isfinite(amp)) {
      continue;
    }
    stores.emplace_back(backend, StoreUpkeepAt(*in, amp));
    t.rows.push_back(StoreRow(backend, stores.back().second));
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  if (!stores.empty()) {
    s.blocks.push_back(Paragraph(
        "The other stores at the same chain rate: their write amplification "
        "as this run's aging measured it, at this run's scale and blocks, "
        "not modelled at full scale."));
    s.blocks.push_back(List(BreakEvens(*in, stores)));
  }
  return s;
}

}  // namespace flatbench::report
