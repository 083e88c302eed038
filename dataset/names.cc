#include "dataset/names.h"

namespace flatbench::dataset {

std::string StoreOf(std::string_view name) {
  return std::string(name.substr(0, name.find('+')));
}

std::vector<std::string> StoresOf(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    std::string store = StoreOf(name);
    bool seen = false;
    for (const std::string& s : out) seen = seen || s == store;
    if (!seen) out.push_back(std::move(store));
  }
  return out;
}

}  // namespace flatbench::dataset
