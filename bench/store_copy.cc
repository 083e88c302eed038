#include "bench/store_copy.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <filesystem>

namespace flatbench::bench {
namespace fs = std::filesystem;

namespace {

// Removes the copy's folder and log; errors are left for the next Make.
void RemoveCopy(const std::string& copy) {
  std::error_code ec;
  fs::remove_all(copy, ec);
  fs::remove(copy + ".log", ec);
}

// `from` to `to` as a reflink, else a plain copy; *shared false for a copy.
Status CopyFile(const fs::path& from, const fs::path& to, bool* shared) {
  const int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Status::FromErrno("open " + from.string());
  const int out =
      open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    close(in);
    return Status::FromErrno("create " + to.string());
  }
  const bool cloned = ioctl(out, FICLONE, in) == 0;
  close(in);
  close(out);
  if (cloned) return Status::Ok();
  *shared = false;
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::IOError("copy " + from.string() + ": " + ec.message());
  return Status::Ok();
}

Status CopyTree(const fs::path& from, const fs::path& to, bool* shared) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return Status::IOError("create " + to.string() + ": " + ec.message());
  for (const fs::directory_entry& e : fs::directory_iterator(from, ec)) {
    const fs::path target = to / e.path().filename();
    if (e.is_directory()) {
      FLATBENCH_RETURN_IF_ERROR(CopyTree(e.path(), target, shared));
    } else if (e.is_regular_file()) {
      FLATBENCH_RETURN_IF_ERROR(CopyFile(e.path(), target, shared));
    }
  }
  if (ec) return Status::IOError("list " + from.string() + ": " + ec.message());
  return Status::Ok();
}

}  // namespace

std::string StoreCopy::PathFor(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".live";
}

Result<std::unique_ptr<StoreCopy>> StoreCopy::Make(const std::string& dir) {
  const std::string copy = PathFor(dir);
  RemoveCopy(copy);
  std::unique_ptr<StoreCopy> c(new StoreCopy(copy));
  bool shared = true;
  Status st = CopyTree(dir, copy, &shared);
  std::error_code ec;
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  if (st.ok() && fs::exists(d + ".log", ec)) {
    st = CopyFile(d + ".log", copy + ".log", &shared);
  }
  if (!st.ok()) return st.WithContext("copy of the store for a writing pass");
  c->method_ = shared ? "reflink" : "copy";
  return c;
}

StoreCopy::~StoreCopy() { RemoveCopy(dir_); }

}  // namespace flatbench::bench
