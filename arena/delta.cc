#include "arena/delta.h"

#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "arena/format.h"
#include "common/files.h"

namespace flatbench::arena {
namespace {

constexpr char kDeltaMagic[] = "FBDELTA1";
constexpr char kDeltaEndMagic[] = "FBDEND01";
constexpr size_t kDeltaMagicSize = 8;
constexpr size_t kDeltaTrailerSize = 24;

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

uint64_t Delta::LogicalBytes() const {
  uint64_t n = 0;
  for (const auto& table : ops) {
    for (const DeltaOp& op : table) n += op.key.size() + op.value.size();
  }
  return n;
}

Status CheckDelta(const Delta& delta, const std::string& name) {
  for (int t = 0; t < kNumTables; ++t) {
    const Table table = static_cast<Table>(t);
    const auto& ops = delta.ops[t];
    for (size_t i = 0; i < ops.size(); ++i) {
      const std::string where =
          name + ": " + TableName(table) + " op " + std::to_string(i);
      if (ops[i].key.size() != KeySize(table)) {
        return Status::Corruption(
            where + ": key of " + std::to_string(ops[i].key.size()) +
            " bytes, the table's are " + std::to_string(KeySize(table)));
      }
      if (ops[i].value.size() > MaxValueSize(KeySize(table)) ||
          (ops[i].erase && !ops[i].value.empty())) {
        return Status::Corruption(
            where + ": value of " + std::to_string(ops[i].value.size()) +
            " bytes" + (ops[i].erase ? " on an erase" : ""));
      }
      if (i > 0 && ops[i - 1].key >= ops[i].key) {
        return Status::Corruption(where + ": key not above the one before");
      }
    }
  }
  return Status::Ok();
}

std::string EncodeDelta(const Delta& delta) {
  std::string out(kDeltaMagic, kDeltaMagicSize);
  for (int t = 0; t < kNumTables; ++t) {
    for (const DeltaOp& op : delta.ops[t]) {
      out.push_back(static_cast<char>(t));
      out.push_back(static_cast<char>(op.erase ? 1 : 0));
      out.append(op.key);
      if (op.erase) continue;
      const uint16_t n = static_cast<uint16_t>(op.value.size());
      out.push_back(static_cast<char>(n & 0xff));
      out.push_back(static_cast<char>(n >> 8));
      out.append(op.value);
    }
  }
  const uint64_t sum = XXH3_64bits(out.data(), out.size());
  out.append(kDeltaEndMagic, kDeltaMagicSize);
  PutU64(&out, delta.size());
  PutU64(&out, sum);
  return out;
}

Result<Delta> DecodeDelta(std::string_view bytes, const std::string& name) {
  if (bytes.size() < kDeltaMagicSize + kDeltaTrailerSize ||
      std::memcmp(bytes.data(), kDeltaMagic, kDeltaMagicSize) != 0) {
    return Status::Corruption(
        name + ": not a delta file (no FBDELTA1 magic" +
        (bytes.size() < kDeltaMagicSize + kDeltaTrailerSize
             ? ", or shorter than header and trailer)"
             : ")"));
  }
  const size_t body_end = bytes.size() - kDeltaTrailerSize;
  const char* trailer = bytes.data() + body_end;
  if (std::memcmp(trailer, kDeltaEndMagic, kDeltaMagicSize) != 0) {
    return Status::Corruption(name + ": no trailer (the file is cut short)");
  }
  if (XXH3_64bits(bytes.data(), body_end) != GetU64(trailer + 16)) {
    return Status::Corruption(name + ": checksum mismatch");
  }
  Delta d;
  size_t pos = kDeltaMagicSize;
  int last_table = 0;
  while (pos < body_end) {
    const std::string at = name + ": record at offset " + std::to_string(pos);
    if (body_end - pos < 2) return Status::Corruption(at + ": cut short");
    const uint8_t t = static_cast<uint8_t>(bytes[pos]);
    const uint8_t op = static_cast<uint8_t>(bytes[pos + 1]);
    if (t >= kNumTables) {
      return Status::Corruption(at + ": unknown table " + std::to_string(t));
    }
    if (op > 1)
      return Status::Corruption(at + ": unknown op " + std::to_string(op));
    if (t < last_table) {
      return Status::Corruption(at + ": an account record after storage");
    }
    last_table = t;
    pos += 2;
    const size_t width = KeySize(static_cast<Table>(t));
    if (body_end - pos < width) return Status::Corruption(at + ": cut short");
    DeltaOp o;
    o.erase = op == 1;
    o.key.assign(bytes.data() + pos, width);
    pos += width;
    if (!o.erase) {
      if (body_end - pos < 2) return Status::Corruption(at + ": cut short");
      const size_t n =
          static_cast<uint8_t>(bytes[pos]) |
          (static_cast<size_t>(static_cast<uint8_t>(bytes[pos + 1])) << 8);
      pos += 2;
      if (body_end - pos < n) return Status::Corruption(at + ": cut short");
      o.value.assign(bytes.data() + pos, n);
      pos += n;
    }
    d.ops[t].push_back(std::move(o));
  }
  if (d.size() != GetU64(trailer + 8)) {
    return Status::Corruption(name + ": " + std::to_string(d.size()) +
                              " records, the trailer says " +
                              std::to_string(GetU64(trailer + 8)));
  }
  FLATBENCH_RETURN_IF_ERROR(CheckDelta(d, name));
  return d;
}

Status WriteDelta(const Delta& delta, const std::string& path) {
  FLATBENCH_RETURN_IF_ERROR(CheckDelta(delta, path));
  return WriteFileAtomic(path, EncodeDelta(delta));
}

Result<Delta> ReadDelta(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Status::MissingInput(path + ": no such delta file");
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status::Corruption(path + ": not a regular file, so no delta");
  }
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::IOError(path + ": " + ec.message());
  if (size > kMaxDeltaBytes) {
    return Status::Corruption(path + ": " + std::to_string(size) +
                              " bytes, above a delta's limit of " +
                              std::to_string(kMaxDeltaBytes));
  }
  FLATBENCH_ASSIGN_OR_RETURN(const std::string bytes, ReadSmallFile(path));
  return DecodeDelta(bytes, path);
}

}  // namespace flatbench::arena
