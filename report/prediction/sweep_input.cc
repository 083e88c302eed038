#include "report/prediction/sweep_input.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/sweep_schema.h"

namespace flatbench::report {
namespace {

using nlohmann::json;

bool HasType(const json& v, sweep::Type t) {
  switch (t) {
    case sweep::Type::kInteger:
      return v.is_number_integer() && (v.is_number_unsigned() || v >= 0);
    case sweep::Type::kNumber:
      return v.is_number() && std::isfinite(v.get<double>());
    case sweep::Type::kText:
      return v.is_string();
    case sweep::Type::kBool:
      return v.is_boolean();
    case sweep::Type::kArray:
      return v.is_array();
    case sweep::Type::kObject:
      return v.is_object();
  }
  return false;
}

// Every key of `keys` present in `obj` with its type.
template <size_t N>
Status CheckKeys(const json& obj, const sweep::Key (&keys)[N],
                 const std::string& where) {
  if (!obj.is_object()) return Status::Corruption(where + ": not an object");
  for (const auto& k : keys) {
    auto it = obj.find(std::string(k.name));
    if (it == obj.end()) {
      return Status::Corruption(where + ": missing \"" + std::string(k.name) +
                                "\"");
    }
    if (!HasType(*it, k.type)) {
      return Status::Corruption(where + ": \"" + std::string(k.name) +
                                "\" is not " + sweep::TypeName(k.type));
    }
  }
  return Status::Ok();
}

Result<ReadGeometry> ParseGeometry(const json& g, const std::string& where) {
  FLATBENCH_RETURN_IF_ERROR(CheckKeys(g, sweep::kGeometryKeys, where));
  ReadGeometry r;
  r.pairs = g[sweep::kGeoPairs.name].get<uint64_t>();
  r.data_units = g[sweep::kGeoDataUnits.name].get<uint64_t>();
  r.data_bytes = g[sweep::kGeoDataBytes.name].get<uint64_t>();
  r.data_page_aligned = g[sweep::kGeoDataPageAligned.name].get<bool>();
  r.index_bytes = g[sweep::kGeoIndexBytes.name].get<uint64_t>();
  r.filter_bytes = g[sweep::kGeoFilterBytes.name].get<uint64_t>();
  r.index_levels = g[sweep::kGeoIndexLevels.name].get<uint32_t>();
  r.filter_fp_rate = g[sweep::kGeoFilterFpRate.name].get<double>();
  if (r.filter_fp_rate < 0 || r.filter_fp_rate > 1) {
    return Status::Corruption(where + ": filter_fp_rate outside [0, 1]");
  }
  if (r.data_units > 0 && r.data_bytes < r.data_units) {
    return Status::Corruption(where + ": data_bytes below data_units");
  }
  return r;
}

}  // namespace

bool LooksLikeSweep(std::string_view text) {
  json d = json::parse(text, nullptr, false);
  return !d.is_discarded() && d.is_object() &&
         d.contains(std::string(sweep::kVersion.name));
}

Result<SweepInput> ParseSweep(std::string_view text, const std::string& file) {
  const std::string where = "sweep " + file;
  json d = json::parse(text, nullptr, false);
  if (d.is_discarded()) return Status::Corruption(where + ": not valid JSON");
  FLATBENCH_RETURN_IF_ERROR(CheckKeys(d, sweep::kTopKeys, where));
  if (d[sweep::kVersion.name] != sweep::kFormatVersion) {
    return Status::Corruption(
        where + ": sweep format " + d[sweep::kVersion.name].dump() +
        ", this build reads " + std::to_string(sweep::kFormatVersion));
  }
  SweepInput in;
  in.file = file;
  in.slots_per_account = d[sweep::kSlotsPerAccount.name].get<uint32_t>();
  in.seed = d[sweep::kSeed.name].get<uint64_t>();
  in.backends = d[sweep::kBackends.name].get<std::string>();
  in.finished = d[sweep::kFinished.name].get<bool>();
  for (const auto& a : d[sweep::kPlannedAccounts.name]) {
    if (!HasType(a, sweep::Type::kInteger)) {
      return Status::Corruption(where + ": planned_accounts: not integers");
    }
    in.planned_accounts.push_back(a.get<uint64_t>());
  }
  if (d.contains(std::string(sweep::kDeviceProfile.name))) {
    FLATBENCH_ASSIGN_OR_RETURN(
        in.device_profile,
        ParseDeviceProfile(
            d[sweep::kDeviceProfile.name],
            where + ": " + std::string(sweep::kDeviceProfile.name)));
  }
  int i = 0;
  for (const auto& s : d[sweep::kSizes.name]) {
    const std::string at = where + ": sizes[" + std::to_string(i++) + "]";
    FLATBENCH_RETURN_IF_ERROR(CheckKeys(s, sweep::kSizeKeys, at));
    SweepSize size;
    size.accounts = s[sweep::kAccounts.name].get<uint64_t>();
    size.pairs = s[sweep::kPairs.name].get<uint64_t>();
    size.spec = s[sweep::kSpec.name].get<std::string>();
    if (size.pairs != size.accounts * (1 + uint64_t{in.slots_per_account})) {
      return Status::Corruption(at + ": pairs " + std::to_string(size.pairs) +
                                " do not match its accounts and slots");
    }
    if (!in.sizes.empty() && size.accounts <= in.sizes.back().accounts) {
      return Status::Corruption(at + ": sizes are not in ascending order");
    }
    for (const auto& [backend, tables] : s[sweep::kGeometry.name].items()) {
      BackendGeometry g;
      for (flatbench::Table t :
           {flatbench::Table::kAccount, flatbench::Table::kStorage}) {
        const std::string gw =
            at + ": geometry." + backend + "." + TableName(t);
        if (!tables.is_object() || !tables.contains(TableName(t))) {
          return Status::Corruption(gw + ": missing");
        }
        FLATBENCH_ASSIGN_OR_RETURN(g.tables[static_cast<int>(t)],
                                   ParseGeometry(tables[TableName(t)], gw));
      }
      size.geometry[backend] = g;
    }
    FLATBENCH_ASSIGN_OR_RETURN(
        size.results,
        ParseResultsDocument(
            s[sweep::kResults.name],
            file + " (sizes[" + std::to_string(i - 1) + "].results)"));
    in.sizes.push_back(std::move(size));
  }
  return in;
}

}  // namespace flatbench::report
