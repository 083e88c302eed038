#include "baselines/lmdb_meta.h"

#include <fcntl.h>
#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "baselines/lmdb_layout.h"
#include "common/files.h"

namespace flatbench::baselines {

Status FromMdb(int rc, const std::string& what) {
  if (rc == MDB_SUCCESS) return Status::Ok();
  std::string msg = what + ": " + mdb_strerror(rc);
  if (rc == MDB_CORRUPTED || rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH ||
      rc == MDB_PAGE_NOTFOUND) {
    return Status::Corruption(msg);
  }
  if (rc == ENOENT || rc == MDB_NOTFOUND) return Status::MissingInput(msg);
  return Status::IOError(msg);
}
namespace {

// LMDB does not export its page layout, so the offsets are written out here
// from lmdb's mdb.c (0.9, 64-bit builds): a page starts with a 16-byte
// header (lmdb_layout.h: page number, pad, flags, bounds); a meta page's
// MDB_meta follows it: magic, version, map address, map size, two 48-byte
// MDB_db records (the first one's leading uint32 is the page size), last page
// number, transaction id.
using lmdb_layout::kFlagsOffset;
constexpr uint16_t kMetaPageFlag = 0x08;  // P_META
constexpr size_t kMetaOffset = 16;
constexpr size_t kMagicOffset = kMetaOffset + 0;
constexpr size_t kVersionOffset = kMetaOffset + 4;
constexpr size_t kPageSizeOffset = kMetaOffset + 24;
constexpr size_t kLastPageOffset = kMetaOffset + 120;
constexpr size_t kTxnIdOffset = kMetaOffset + 128;
constexpr size_t kMetaBytes = kTxnIdOffset + 8;  // What one meta page needs.
constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr uint32_t kMinPageSize = 512;
constexpr uint32_t kMaxPageSize = 65536;

template <typename T>
T Load(const unsigned char* p, size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof(v));
  return v;
}

Status ShortFile(const std::string& path, uint64_t size, uint64_t expected,
                 const std::string& why) {
  return Status::Corruption(path + ": " + std::to_string(size) +
                            " bytes, expected at least " +
                            std::to_string(expected) + " (" + why + ")");
}

Status ReadMeta(int fd, const std::string& path, int index, uint64_t offset,
                unsigned char* buf) {
  ssize_t n = ::pread(fd, buf, kMetaBytes, static_cast<off_t>(offset));
  if (n < 0) return Status::FromErrno(path);
  if (static_cast<size_t>(n) != kMetaBytes) {
    return Status::Corruption(path + ": meta page " + std::to_string(index) +
                              " cut short");
  }
  std::string where = path + ": meta page " + std::to_string(index);
  if ((Load<uint16_t>(buf, kFlagsOffset) & kMetaPageFlag) == 0 ||
      Load<uint32_t>(buf, kMagicOffset) != kMagic) {
    return Status::Corruption(where + " is not an LMDB meta page (bad magic)");
  }
  if (Load<uint32_t>(buf, kVersionOffset) != kDataVersion) {
    return Status::Corruption(
        where + ": LMDB data version " +
        std::to_string(Load<uint32_t>(buf, kVersionOffset)) + ", expected " +
        std::to_string(kDataVersion));
  }
  return Status::Ok();
}

}  // namespace

Result<LmdbMeta> CheckLmdbDataFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return Status::MissingInput(path + ": no such file");
    return Status::FromErrno(path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Status::FromErrno(path);
  LmdbMeta m;
  m.file_bytes = static_cast<uint64_t>(st.st_size);
  if (m.file_bytes < kMetaBytes) {
    return ShortFile(path, m.file_bytes, kMetaBytes, "the first meta page");
  }
  unsigned char meta[2][kMetaBytes];
  FLATBENCH_RETURN_IF_ERROR(ReadMeta(fd.get(), path, 0, 0, meta[0]));
  uint32_t psize = Load<uint32_t>(meta[0], kPageSizeOffset);
  if (psize < kMinPageSize || psize > kMaxPageSize ||
      (psize & (psize - 1)) != 0) {
    return Status::Corruption(path + ": meta page 0 gives page size " +
                              std::to_string(psize) +
                              ", not a power of two in 512..65536");
  }
  if (m.file_bytes < 2ULL * psize) {
    return ShortFile(path, m.file_bytes, 2ULL * psize,
                     "two meta pages of " + std::to_string(psize) + " bytes");
  }
  FLATBENCH_RETURN_IF_ERROR(ReadMeta(fd.get(), path, 1, psize, meta[1]));
  // LMDB writes transaction T's meta to page T % 2 (mdb_env_write_meta),
  // and a new environment's to both, as transaction 0. A reader that picks
  // the page with the higher id (as this check and mdb_env_open do) and one
  // that picks page id % 2 (as LMDB's read transactions do) agree only
  // while that holds: a changed id breaks it, or it ties both pages.
  const uint64_t txn[2] = {Load<uint64_t>(meta[0], kTxnIdOffset),
                           Load<uint64_t>(meta[1], kTxnIdOffset)};
  for (int i = 0; i < 2; ++i) {
    const bool fresh = txn[0] == 0 && txn[1] == 0;
    if (txn[i] % 2 != static_cast<uint64_t>(i) && !fresh) {
      return Status::Corruption(
          path + ": meta page " + std::to_string(i) + " holds transaction " +
          std::to_string(txn[i]) + ", but LMDB writes " +
          (i == 0 ? "even" : "odd") + " transactions to page " +
          std::to_string(i) + " (meta page " + std::to_string(1 - i) +
          " holds " + std::to_string(txn[1 - i]) + ")");
    }
  }
  // LMDB reads through the meta page with the higher transaction id.
  m.meta_page = txn[1] > txn[0] ? 1 : 0;
  const unsigned char* cur = meta[m.meta_page];
  m.page_size = psize;
  m.txn_id = Load<uint64_t>(cur, kTxnIdOffset);
  m.last_page = Load<uint64_t>(cur, kLastPageOffset);
  std::string claim = "meta page " + std::to_string(m.meta_page) + " (txn " +
                      std::to_string(m.txn_id) + ") claims pages 0.." +
                      std::to_string(m.last_page) + " of " +
                      std::to_string(psize) + " bytes";
  if (m.last_page < 1 || m.last_page >= (UINT64_MAX / psize) - 1) {
    return Status::Corruption(path + ": " + claim);
  }
  m.needed_bytes = (m.last_page + 1) * psize;
  if (m.file_bytes < m.needed_bytes) {
    return ShortFile(path, m.file_bytes, m.needed_bytes, claim);
  }
  return m;
}

}  // namespace flatbench::baselines
