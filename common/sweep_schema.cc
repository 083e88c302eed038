#include "common/sweep_schema.h"

namespace flatbench::sweep {

const char* TypeName(Type type) {
  switch (type) {
    case Type::kInteger:
      return "integer";
    case Type::kNumber:
      return "number";
    case Type::kText:
      return "text";
    case Type::kBool:
      return "bool";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "?";
}

}  // namespace flatbench::sweep
