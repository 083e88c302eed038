#include "baselines/postgres_user.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

namespace flatbench::baselines {
namespace fs = std::filesystem;

Result<ServerUser> ResolveServerUser() {
  ServerUser u;
  if (geteuid() != 0) {
    u.uid = geteuid();
    u.gid = getegid();
    struct passwd* pw = getpwuid(u.uid);
    u.name = pw != nullptr ? pw->pw_name : std::to_string(u.uid);
    return u;
  }
  struct passwd* pw = getpwnam(kPostgresUser);
  if (pw == nullptr) {
    return Status::MissingInput(
        std::string("user '") + kPostgresUser +
        "': no such user; PostgreSQL refuses to run as root and the server "
        "runs as this user, created by Debian's postgresql-common package");
  }
  u.name = kPostgresUser;
  u.uid = pw->pw_uid;
  u.gid = pw->pw_gid;
  u.switch_user = true;
  return u;
}

// fork and set*id rather than runuser: runuser opens a PAM session and
// logs every start.
Status RunAsUser(const ServerUser& user, const std::string& program,
                 const std::vector<std::string>& args, int* exit_code,
                 std::string* output) {
  // Everything the child needs is prepared before fork: after it only
  // async-signal-safe calls are made.
  std::vector<std::string> argv_s = args;
  argv_s[0] = program;
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string env_path = "PATH=/usr/bin:/bin";
  std::string env_lc = "LC_ALL=C";
  char* envp[] = {env_path.data(), env_lc.data(), nullptr};
  int pipe_fd[2];
  if (pipe2(pipe_fd, O_CLOEXEC) != 0) return Status::FromErrno("pipe");
  pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    return Status::FromErrno("fork for " + args[0]);
  }
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(pipe_fd[1], 1) < 0 ||
        dup2(pipe_fd[1], 2) < 0) {
      _exit(127);
    }
    // No inherited descriptor (a dataset lock, a benchmark's files) may
    // outlive this process in the server it starts.
    close_range(3, ~0U, 0);
    if (user.switch_user && (setgroups(1, &user.gid) != 0 ||
                             setgid(user.gid) != 0 || setuid(user.uid) != 0)) {
      static const char kMsg[] = "cannot switch to the server user\n";
      (void)!write(2, kMsg, sizeof(kMsg) - 1);
      _exit(126);
    }
    if (chdir("/") != 0) _exit(127);
    execve(argv[0], argv.data(), envp);
    _exit(127);
  }
  close(pipe_fd[1]);
  output->clear();
  char buf[4096];
  ssize_t n;
  while ((n = read(pipe_fd[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output->append(buf, static_cast<size_t>(n));
  }
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::FromErrno("wait for " + args[0]);
  }
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!output->empty() && output->back() == '\n') output->pop_back();
  for (char& c : *output) c = c == '\n' ? ' ' : c;
  return Status::Ok();
}

Status GiveToUser(const ServerUser& user, const std::string& dir) {
  if (!user.switch_user) return Status::Ok();
  if (chown(dir.c_str(), user.uid, user.gid) != 0) {
    return Status::FromErrno("chown " + dir + " to user " + user.name);
  }
  // The server user must traverse every ancestor to reach its folder.
  for (fs::path p = fs::path(dir).parent_path(); !p.empty();
       p = p.parent_path()) {
    struct stat st {};
    if (stat(p.c_str(), &st) != 0)
      return Status::FromErrno("stat " + p.string());
    const bool ok = (st.st_mode & S_IXOTH) ||
                    (st.st_uid == user.uid && (st.st_mode & S_IXUSR)) ||
                    (st.st_gid == user.gid && (st.st_mode & S_IXGRP));
    if (!ok) {
      if (chmod(p.c_str(), (st.st_mode & 07777) | S_IXOTH) != 0) {
        return Status::FromErrno("chmod o+x " + p.string() + " (for user " +
                                 user.name + ")");
      }
      std::fprintf(stderr,
                   "postgres: gave others search (x) permission on %s so the "
                   "server user '%s' can reach %s\n",
                   p.c_str(), user.name.c_str(), dir.c_str());
    }
    if (p == p.root_path()) break;
  }
  return Status::Ok();
}

}  // namespace flatbench::baselines
