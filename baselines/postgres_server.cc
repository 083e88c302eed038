#include "baselines/postgres_server.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "baselines/postgres_user.h"
#include "common/stop_signals.h"

namespace flatbench::baselines {
namespace fs = std::filesystem;
namespace {

constexpr int kPort = 5432;
constexpr size_t kMaxSocketPath = 107;  // sizeof(sun_path) - 1 on Linux.
constexpr const char* kTimeoutSeconds = "120";

// Appended to postgresql.conf by Init; RESEARCH.md gives the reasons.
constexpr const char* kSettings = R"(
# flatbench: a read-only reference store served to local clients only.
listen_addresses = ''
port = 5432
max_connections = 100
shared_buffers = 1GB
huge_pages = off
effective_cache_size = 4GB
maintenance_work_mem = 256MB
jit = off
autovacuum = off
max_parallel_workers_per_gather = 0
wal_level = minimal
max_wal_senders = 0
synchronous_commit = off
logging_collector = off
log_line_prefix = '%m [%p] '
)";

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl.
Status FindBinDir(std::string* bin, std::string* version) {
  const std::string root = "/usr/lib/postgresql";
  std::error_code ec;
  int best = -1;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    const std::string b = e.path().string() + "/bin";
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) {
      continue;
    }
    if (access((b + "/initdb").c_str(), X_OK) != 0 ||
        access((b + "/pg_ctl").c_str(), X_OK) != 0) {
      continue;
    }
    int v = std::stoi(name);
    if (v > best) {
      best = v;
      *bin = b;
      *version = name;
    }
  }
  if (best < 0) {
    return Status::MissingInput(
        root +
        "/<version>/bin: no PostgreSQL server programs (initdb, "
        "pg_ctl); install Debian's postgresql package");
  }
  return Status::Ok();
}

// The pid a PostgreSQL lock file names, or 0.
int LockFilePid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return 0;
  return static_cast<int>(pid);
}

// Alive and not a zombie (an orphan's zombie may wait long for its reaper).
bool Alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (pid <= 0 || !std::getline(stat, line)) return false;
  size_t close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() &&
         line[close + 2] != 'Z' && line[close + 2] != 'X';
}

int ParentPid(const std::string& stat_path, bool* alive) {
  std::ifstream stat(stat_path);
  std::string line;
  *alive = false;
  if (!std::getline(stat, line)) return 0;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  char state = 0;
  int ppid = 0;
  rest >> state >> ppid;
  *alive = state != 'Z' && state != 'X';
  return ppid;
}

}  // namespace

Result<PostgresServer> PostgresServer::ForDir(const std::string& dir) {
  PostgresServer s;
  std::error_code ec;
  s.dir_ = fs::absolute(dir, ec).lexically_normal().string();
  if (ec) return Status::IOError(dir + ": " + ec.message());
  while (s.dir_.size() > 1 && s.dir_.back() == '/') s.dir_.pop_back();
  const std::string socket = s.dir_ + "/.s.PGSQL." + std::to_string(kPort);
  if (socket.size() > kMaxSocketPath) {
    return Status::Usage(s.dir_ +
                         ": too long for the postgres server's Unix "
                         "socket in it (" +
                         std::to_string(socket.size()) +
                         " bytes with the socket name, the limit is " +
                         std::to_string(kMaxSocketPath) +
                         "); choose a shorter --dir");
  }
  FLATBENCH_RETURN_IF_ERROR(FindBinDir(&s.bin_, &s.version_));
  FLATBENCH_ASSIGN_OR_RETURN(s.user_, ResolveServerUser());
  return s;
}

Status PostgresServer::Run(const std::vector<std::string>& args, int* exit_code,
                           std::string* output) const {
  return RunAsUser(user_, bin_ + "/" + args[0], args, exit_code, output);
}

Status PostgresServer::Init() const {
  FLATBENCH_RETURN_IF_ERROR(GiveToUser(user_, dir_));
  int rc = 0;
  std::string out;
  FLATBENCH_RETURN_IF_ERROR(
      Run({"initdb", "-D", dir_, "-U", kPostgresRole, "-A", "trust", "-E",
           "UTF8", "--locale=C", "--data-checksums", "--no-instructions"},
          &rc, &out));
  if (rc != 0) {
    return Status::IOError(dir_ + ": initdb (as user " + user_.name +
                           ") exited " + std::to_string(rc) + ": " + out);
  }
  std::ofstream conf(dir_ + "/postgresql.conf", std::ios::app);
  conf << kSettings;
  conf.flush();
  if (!conf) return Status::IOError(dir_ + "/postgresql.conf: cannot append");
  return Status::Ok();
}

Status PostgresServer::Start() {
  // A stop signal waits until the server is up and its stop registered.
  StopGuard hold;
  FLATBENCH_RETURN_IF_ERROR(GiveToUser(user_, dir_));
  const std::string pid_file = dir_ + "/postmaster.pid";
  const std::string owner_file = dir_ + "/" + kOwnerFile;
  if (access(pid_file.c_str(), F_OK) == 0) {
    const int running = PostmasterPid();
    const int owner = LockFilePid(owner_file);
    if (running != 0 && owner != 0 && owner != getpid() && Alive(owner)) {
      return Status::IOError(dir_ + ": its postgres server (pid " +
                             std::to_string(running) +
                             ") is in use by flatbench process " +
                             std::to_string(owner) + "; wait for it to end");
    }
    if (running != 0) {
      std::fprintf(stderr,
                   "postgres: stopping the server left running in %s (pid "
                   "%d) to start a fresh one\n",
                   dir_.c_str(), running);
      FLATBENCH_RETURN_IF_ERROR(Stop());
    } else {
      // A killed server's lock files; its pid may be a zombie, which the
      // server's own check would take for a live postmaster.
      unlink(pid_file.c_str());
      const std::string lock =
          dir_ + "/.s.PGSQL." + std::to_string(kPort) + ".lock";
      if (!Alive(LockFilePid(lock))) unlink(lock.c_str());
    }
  }
  int rc = 0;
  std::string out;
  FLATBENCH_RETURN_IF_ERROR(
      Run({"pg_ctl", "start", "-w", "-t", kTimeoutSeconds, "-D", dir_, "-l",
           dir_ + "/" + kPostgresLog, "-o", "-k " + ShellQuote(dir_)},
          &rc, &out));
  if (rc != 0) {
    return Status::IOError(dir_ +
                           ": postgres server did not start (pg_ctl "
                           "exited " +
                           std::to_string(rc) + ": " + out + "); " +
                           kPostgresLog + ": " + LogTail(5));
  }
  // Who started it: another flatbench process leaves it alone while this
  // one lives, and stops it as a leftover once this one is gone.
  std::ofstream(owner_file) << getpid() << "\n";
  started_ = true;
  PostgresServer copy = *this;
  copy.stop_action_ = 0;
  stop_action_ = AddStopAction([copy]() mutable { (void)copy.Stop(); });
  return Status::Ok();
}

// The statistics file a server writes at shutdown and deletes at start:
// dropped at every stop, so that the folder holds the same files whether
// the server runs or not (the benchmark lists them once, server stopped).
// Cumulative statistics feed autovacuum and monitoring, unused here.
void PostgresServer::ForgetStopped() const {
  unlink((dir_ + "/" + kOwnerFile).c_str());
  unlink((dir_ + "/pg_stat/pgstat.stat").c_str());
}

Status PostgresServer::Stop() {
  // A stop signal waits until this stop is done.
  StopGuard hold;
  RemoveStopAction(stop_action_);
  stop_action_ = 0;
  started_ = false;
  if (PostmasterPid() == 0) {
    ForgetStopped();
    return Status::Ok();
  }
  int rc = 0;
  std::string out;
  FLATBENCH_RETURN_IF_ERROR(Run(
      {"pg_ctl", "stop", "-w", "-t", kTimeoutSeconds, "-m", "fast", "-D", dir_},
      &rc, &out));
  if (rc != 0 && PostmasterPid() != 0) {
    return Status::IOError(dir_ +
                           ": postgres server did not stop (pg_ctl "
                           "exited " +
                           std::to_string(rc) + ": " + out + "); " +
                           kPostgresLog + ": " + LogTail(5));
  }
  ForgetStopped();
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> PostgresServer::ConnParams()
    const {
  return {{"host", dir_},
          {"port", std::to_string(kPort)},
          {"user", kPostgresRole},
          {"dbname", "postgres"},
          {"application_name", "flatbench"}};
}

std::string PostgresServer::LogTail(int lines) const {
  std::ifstream in(dir_ + "/" + kPostgresLog);
  if (!in) return "(no server log)";
  std::vector<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (last.size() > static_cast<size_t>(lines)) last.erase(last.begin());
  }
  std::string out;
  for (const auto& l : last) out += (out.empty() ? "" : " | ") + l;
  return out.empty() ? "(empty server log)" : out;
}

int PostgresServer::PostmasterPid() const {
  int pid = LockFilePid(dir_ + "/postmaster.pid");
  return Alive(pid) ? pid : 0;
}

std::vector<int> PostgresServer::Processes() const {
  std::vector<int> out;
  const int postmaster = PostmasterPid();
  if (postmaster == 0) return out;
  out.push_back(postmaster);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) {
      continue;
    }
    bool alive = false;
    if (ParentPid(e.path().string() + "/stat", &alive) == postmaster && alive) {
      out.push_back(std::stoi(name));
    }
  }
  return out;
}

}  // namespace flatbench::baselines
