#pragma once
// The unprivileged user a PostgreSQL server runs as, and running its
// programs as that user.
//
// PostgreSQL refuses to run as root. When this process is root, the server
// runs as Debian's `postgres` system user, which the postgresql-common
// package creates (flatbench.sh installs it); otherwise as the current user.

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench::baselines {

inline constexpr const char* kPostgresUser = "postgres";

struct ServerUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  bool switch_user = false;  // True when this process is root.
};

// kMissingInput, saying where the user comes from, when root and there is
// no `postgres` user.
Result<ServerUser> ResolveServerUser();

// Runs `program` with `args` (args[0] its name) as `user`: no inherited
// descriptor beyond stdio, stdin /dev/null, a minimal environment, cwd "/".
// *output receives stdout and stderr with newlines as spaces; *exit_code
// the exit status (128 + signal when killed).
Status RunAsUser(const ServerUser& user, const std::string& program,
                 const std::vector<std::string>& args, int* exit_code,
                 std::string* output);

// When `user` is switched to (root): gives `dir` to the user (chown) and
// adds the search bit for others (o+x, never read) to every ancestor the
// user could not traverse, saying so on stderr. A no-op otherwise.
Status GiveToUser(const ServerUser& user, const std::string& dir);

}  // namespace flatbench::baselines
