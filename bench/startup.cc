#include "bench/startup.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "bench/child_process.h"
#include "bench/io_stats.h"
#include "bench/pass.h"
#include "common/hex.h"
#include "common/results_ops.h"

namespace flatbench::bench {

nlohmann::json ProbeMessage(const ProbeRequest& r) {
  return {{"op", "probe"},        {"dir", r.dir},
          {"backend", r.backend}, {"table", TableName(r.table)},
          {"key", ToHex(r.key)},  {"lazy_metadata", r.lazy_metadata}};
}

Result<ProbeRequest> ParseProbeMessage(const nlohmann::json& m) {
  if (!m.is_object() || m.value("op", "") != "probe") {
    return Status::Usage("startup probe: the message is not a probe request");
  }
  auto text = [&](const char* field, std::string* out) -> Status {
    if (!m.contains(field) || !m[field].is_string()) {
      return Status::Usage(std::string("startup probe: \"") + field +
                           "\": missing or not a string");
    }
    *out = m[field].get<std::string>();
    return Status::Ok();
  };
  ProbeRequest r;
  std::string table, key;
  FLATBENCH_RETURN_IF_ERROR(text("dir", &r.dir));
  FLATBENCH_RETURN_IF_ERROR(text("backend", &r.backend));
  FLATBENCH_RETURN_IF_ERROR(text("table", &table));
  FLATBENCH_RETURN_IF_ERROR(text("key", &key));
  if (!ParseTable(table, &r.table)) {
    return Status::Usage("startup probe: \"table\": no table " + table);
  }
  if (!FromHex(key, &r.key) || r.key.size() != KeySize(r.table)) {
    return Status::Usage("startup probe: \"key\": not a " +
                         std::to_string(KeySize(r.table)) + "-byte hex " +
                         table + " key");
  }
  const auto lazy = m.find("lazy_metadata");
  if (lazy == m.end() || !lazy->is_boolean()) {
    return Status::Usage(
        "startup probe: \"lazy_metadata\": missing or not true or false");
  }
  r.lazy_metadata = lazy->get<bool>();
  return r;
}

nlohmann::json RunStartupProbe(const Opener& open, const std::string& backend,
                               Table table, const std::string& key,
                               const OpenOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto be = open(backend, options);
  const auto opened = std::chrono::steady_clock::now();
  if (!be.ok()) return ErrorResponse(be.status().WithContext(backend));
  const uint64_t rss = MemoryBytes(be.value()->ServerProcesses());
  auto session = be.value()->NewSession();
  if (!session.ok())
    return ErrorResponse(session.status().WithContext(backend));
  bool found = false;
  std::string_view value;
  Status st = session.value()->Get(table, key, &found, &value);
  const uint64_t read_ns = NowNs();
  if (!st.ok()) return ErrorResponse(st.WithContext(backend));
  if (!found) {
    return ErrorResponse(
        Status::Corruption(backend + ": startup probe: " + TableName(table) +
                           " hit key " + ToHex(key) + " was not found"));
  }
  return {{"ok", true},
          {"open_s", std::chrono::duration<double>(opened - start).count()},
          {"first_read_ns", read_ns},
          {"rss_after_open_bytes", rss}};
}

namespace {

// Writes `line` to `fd` and closes it. A probe that died first leaves a
// broken pipe (EPIPE, SIGPIPE ignored): its exit then says why.
void SendAndClose(int fd, const std::string& line) {
  signal(SIGPIPE, SIG_IGN);
  size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = write(fd, line.data() + sent, line.size() - sent);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      break;
    }
  }
  close(fd);
}

}  // namespace

Result<ProbeTimes> SpawnProbe(const std::vector<std::string>& args,
                              const nlohmann::json& message) {
  // Registered as it starts: a stop signal to the worker ends the probe,
  // which stops a server it started (common/stop_signals.h).
  const uint64_t spawn_ns = NowNs();
  FLATBENCH_ASSIGN_OR_RETURN(
      const Child child, Spawn(args, {.to_stdin = true, .from_stdout = true}));
  // A few hundred bytes: the pipe takes them before the probe reads.
  SendAndClose(child.to_stdin, message.dump() + "\n");
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(child.from_stdout, buf, sizeof(buf));
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(child.from_stdout);
  FLATBENCH_ASSIGN_OR_RETURN(const ChildExit end, WaitChild(child.pid));
  // The result is the last line: a library may have printed before it.
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t nl = text.rfind('\n');
  if (nl != std::string::npos) text.erase(0, nl + 1);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    // No result: the probe printed its error on stderr and exited with its
    // code, or it crashed (kChildFailed).
    Status failed =
        ChildStatus(end, args.size() > 1 ? args[1] : args[0], "startup probe");
    return failed.ok() ? Status::IOError("startup probe printed no result")
                       : failed;
  }
  Status st = ResponseStatus(j);
  if (!st.ok()) return st;
  ProbeTimes t;
  try {
    const uint64_t read_ns = j.at("first_read_ns").get<uint64_t>();
    t.open_s = j.at("open_s").get<double>();
    t.rss_after_open = j.at("rss_after_open_bytes").get<uint64_t>();
    if (read_ns <= spawn_ns) {
      return Status::IOError(
          "startup probe: its first read ended before it "
          "was started (clocks differ?)");
    }
    t.startup_s = static_cast<double>(read_ns - spawn_ns) / 1e9;
  } catch (const nlohmann::json::exception& e) {
    return Status::IOError(std::string("startup probe: ") + e.what());
  }
  return t;
}

Result<nlohmann::json> RunStartupPass(const StartupSpec& spec) {
  std::vector<double> startup, open, rss;
  double worst_resident = spec.cold ? 0.0 : 1.0;
  bool verified = true;
  for (const auto& message : spec.probes) {
    FLATBENCH_ASSIGN_OR_RETURN(auto resident, spec.prepare());
    if (spec.cold) {
      worst_resident = std::max(worst_resident, resident);
      verified = verified && resident <= spec.eviction_bound;
    } else {
      worst_resident = std::min(worst_resident, resident);
      verified = verified && resident >= spec.warm_bound;
    }
    auto t = SpawnProbe(spec.command, message);
    if (!t.ok()) return t.status().WithContext(spec.name);
    startup.push_back(t->startup_s);
    open.push_back(t->open_s);
    rss.push_back(static_cast<double>(t->rss_after_open));
  }
  if (startup.empty()) return Status::Usage(spec.name + ": no probes");
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  const double probes = static_cast<double>(startup.size());
  nlohmann::json e;
  e["name"] = spec.name;
  e["run_name"] = spec.name;
  e["run_type"] = "iteration";
  e["repetitions"] = 1;
  e["repetition_index"] = 0;
  e["threads"] = 1;
  e["iterations"] = startup.size();
  e["real_time"] = median(startup) * 1e9;
  e["cpu_time"] = median(startup) * 1e9;
  e["time_unit"] = "ns";
  e[KeyOf(results::kStartupS)] = median(startup);
  e[KeyOf(results::kStartupMinS)] =
      *std::min_element(startup.begin(), startup.end());
  e[KeyOf(results::kStartupMaxS)] =
      *std::max_element(startup.begin(), startup.end());
  e[KeyOf(results::kStartupProbes)] = probes;
  e[KeyOf(results::kOpenSeconds)] = median(open);
  e[KeyOf(results::kRssAfterOpenBytes)] = median(rss);
  e[KeyOf(results::kThreads)] = 1.0;
  e[KeyOf(results::kRepetition)] = static_cast<double>(spec.repetition);
  e[KeyOf(results::kPassStartS)] = spec.pass_start_s;
  e[KeyOf(results::kEvictionVerified)] = verified ? 1.0 : 0.0;
  if (spec.cold) {
    e[KeyOf(results::kResidentFractionAfterEviction)] = worst_resident;
  }
  return e;
}

}  // namespace flatbench::bench
