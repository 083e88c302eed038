#pragma once
// A PostgreSQL cluster that lives inside a backend folder, and the server
// that serves it: created with initdb, started and stopped with pg_ctl,
// reachable only on a Unix socket in that same folder (no TCP).
//
// PostgreSQL refuses to run as root. When this process runs as root, the
// server runs as Debian's `postgres` system user (created by the
// postgresql-common package, which flatbench.sh installs): the folder is
// handed to that user, and any ancestor directory it cannot traverse gets
// the search (x) bit for others, never read. Otherwise the server runs as
// the current user.

#include <sys/types.h>

#include <string>
#include <vector>

#include "baselines/postgres_user.h"
#include "common/status.h"

namespace flatbench::baselines {

class PostgresServer {
 public:
  // The server for the cluster in `dir` (made absolute). Finds the newest
  // installed /usr/lib/postgresql/<version>/bin and the server user.
  // kMissingInput when PostgreSQL's server programs are not installed,
  // kUsage when the socket path would exceed the 107-byte Unix limit.
  static Result<PostgresServer> ForDir(const std::string& dir);

  // Creates the cluster in the empty `dir` (initdb, data checksums on, the
  // settings in RESEARCH.md appended to postgresql.conf).
  Status Init() const;
  // Starts the server and waits until it accepts connections. A server
  // left running by a process that is gone is stopped first, and a stale
  // postmaster.pid of a dead one removed, so every start is a fresh server
  // with empty shared buffers; kIOError if another live flatbench process
  // started the running server. Errors carry the server log's last lines.
  // Until Stop, a stop signal stops the server (common/stop_signals.h).
  Status Start();
  // Stops a running server (fast shutdown: clients disconnected, then a
  // shutdown checkpoint) and waits until it is gone. Ok if none runs.
  // Removes the statistics file the server writes at shutdown (it would
  // vanish at the next start), so a stopped cluster's files are the ones
  // a running server keeps.
  Status Stop();

  // Whether this object started the server (Start succeeded) and has not
  // stopped it since: what an owner stops when it closes.
  bool started() const { return started_; }
  const std::string& dir() const { return dir_; }
  const ServerUser& user() const { return user_; }
  const std::string& version() const { return version_; }
  // The libpq connection keywords and values (host = the folder).
  std::vector<std::pair<std::string, std::string>> ConnParams() const;
  // " | "-joined last `lines` lines of the server log, for error messages.
  std::string LogTail(int lines) const;
  // The postmaster's pid from postmaster.pid while it is alive, else 0.
  int PostmasterPid() const;
  // The postmaster and its children (backends, checkpointer, ...).
  std::vector<int> Processes() const;

 private:
  // Runs `args` (args[0] a program in bin_) as the server user; *output
  // receives its stdout and stderr.
  Status Run(const std::vector<std::string>& args, int* exit_code,
             std::string* output) const;
  // Removes what only a running server needs once it has stopped.
  void ForgetStopped() const;

  std::string dir_;
  std::string bin_;
  std::string version_;
  ServerUser user_;
  bool started_ = false;
  uint64_t stop_action_ = 0;  // AddStopAction's id while started.
};

inline constexpr const char* kPostgresRole = "flatbench";
inline constexpr const char* kPostgresLog = "server.log";
// In the cluster folder while a server runs: the pid of the flatbench
// process that started it.
inline constexpr const char* kOwnerFile = "flatbench.pid";

}  // namespace flatbench::baselines
