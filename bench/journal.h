#pragma once
// A run's journal: every finished step of the schedule (its pass, and the
// device cell before it), kept beside the results file as "<out>.journal",
// so that a rerun of bench with the same flags continues the same schedule
// at the first step not in it, and a stop, a crash, a SIGKILL or a reboot
// loses at most the step in flight.
//
// Layout: text, one record per line,
//
//   FBJ1 <payload bytes, decimal> <XXH3-64 of the payload, 16 hex> <payload>\n
//
// where the payload is one JSON object (no newline in it) whose "seq" is
// the record's number, counting from 0 at the header (so a record lost or
// repeated anywhere is seen), and whose "type" is
//   "header"  the first record: the journal format (2; format 1 had no
//             "seq" and is refused), the run request (run_request.h, as
//             the run resolved it: JournalRequest in the CLI; a journal
//             written before it holds "flags", each shaping flag's value as
//             text, read into a request by RequestFromFlags), the dataset
//             and build, the host, the schedule (schedule.h,
//             ScheduleToJson), the wall clock at the run's origin and its
//             ISO start time;
//   "pass"    a finished step: its index in the schedule (phases flattened
//             in run order), the wall clock at its end, and its results
//             entries as they go into the results file;
//   "resume"  a later session took the run up again (an Interruption).
// The header is written whole (write, fsync, rename); every later record is
// appended by one write() and fdatasync'ed before the run goes on. Only the
// last record can be torn: a last line that is short, has no newline, or
// whose length or checksum is wrong is a torn append, which ReadJournal cuts
// off (it says so) so that its step runs again, unless it holds more than
// the one record its framing declares (then the record before it lost its
// newline). A bad line anywhere else, or a record number out of sequence,
// is damage, refused.

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/run_request.h"
#include "bench/schedule.h"
#include "common/files.h"
#include "common/status.h"

namespace flatbench::bench {

// "<out>.journal".
std::string JournalPathFor(const std::string& out);

// Seconds since the epoch (CLOCK_REALTIME): journal times outlive a reboot.
double WallNow();

// A gap in the run: the session that measured the steps before it ended and
// a later one resumed the schedule.
struct Interruption {
  double since = 0;    // Wall clock of the last pass (or header) before it.
  double resumed = 0;  // Wall clock when the resuming session started.
  size_t step = 0;     // The first step, in the flattened schedule, it ran.
  std::string pass;    // That step's pass name.
  double Seconds() const { return resumed - since; }
};

struct JournalHeader {
  // The run as asked for, with what shapes its results resolved (the
  // reads and repetitions at the dataset's scale, the eviction, the
  // backends) and the rest at its defaults: a rerun resumes it only with
  // the same.
  RunRequest request;
  // The results' provenance context keys (dataset, build, host) -> value.
  nlohmann::json identity = nlohmann::json::object();
  std::vector<Phase> schedule;
  double started = 0;     // Wall clock at the run's origin.
  std::string run_start;  // ISO 8601 (results::kRunStart).
};

// What a journal holds.
struct JournalState {
  JournalHeader header;
  // Step index -> its entries (a JSON array), in the order they ran.
  std::map<size_t, nlohmann::json> passes;
  std::vector<size_t> order;  // Step indices in the order they were added.
  // Gaps that a pass followed (a session that resumed and ran nothing is
  // merged into the next one's gap).
  std::vector<Interruption> interruptions;
  double last = 0;          // Wall clock of the last pass, or the header.
  uint64_t torn_bytes = 0;  // A torn last record cut off by ReadJournal.
  size_t records = 0;       // Intact records, the header included.
};

// The steps of `phases`, flattened in run order.
size_t StepCount(const std::vector<Phase>& phases);

// Reads the journal at `path`, cutting a torn last record off the file
// (truncate and fsync; ReadJournal reports it in torn_bytes). Errors:
// kMissingInput when absent; kCorruption naming the file and line for a
// damaged header, a journal of another format, a damaged record before
// the last, a record number out of sequence (a record missing, repeated or
// moved), or a record that does not fit the header's schedule; kIOError.
Result<JournalState> ReadJournal(const std::string& path);

// The request in the "flags" of a journal header written before the
// header held the request: kCorruption naming a flag whose value does not
// read.
Result<RunRequest> RequestFromFlags(const nlohmann::json& flags);

// Whether a run of `now` may resume the journal at `path` written for
// `journal`: kCorruption naming the first thing that differs, in this
// order: the dataset (--dir), a field of the request (as its flag), a
// build or host key.
Status CheckSameRun(const std::string& path, const JournalHeader& journal,
                    const JournalHeader& now);

// Whether the gap from the journal's last pass to `now` (wall clock) is at
// most results::kMaxInterruptionSeconds; kCorruption giving both figures.
Status CheckGap(const std::string& path, const JournalState& state, double now);

// Appends records to a journal, each one write() followed by fdatasync.
class JournalWriter {
 public:
  // A new journal at `path` holding `header` (write, fsync, rename).
  // kRefuseOverwrite when one exists.
  static Result<std::unique_ptr<JournalWriter>> Create(
      const std::string& path, const JournalHeader& header);
  // An existing, intact journal, opened to append after the records of
  // `state`, ReadJournal's reading of it.
  static Result<std::unique_ptr<JournalWriter>> Open(const std::string& path,
                                                     const JournalState& state);

  // Step `step` finished at wall clock `at` with these entries.
  Status Pass(size_t step, double at, const nlohmann::json& entries);
  Status Resume(const Interruption& gap);

 private:
  JournalWriter(std::string path, int fd, uint64_t next_seq)
      : path_(std::move(path)), fd_(fd), next_seq_(next_seq) {}
  static Result<std::unique_ptr<JournalWriter>> OpenAt(const std::string& path,
                                                       uint64_t next_seq);
  // Appends `payload` numbered next_seq_.
  Status Append(nlohmann::json payload);
  std::string path_;
  UniqueFd fd_;
  uint64_t next_seq_;  // The number of the next record appended.
};

// One journal line holding `payload` as it is (numbered or not), newline
// included.
std::string JournalLine(const nlohmann::json& payload);

}  // namespace flatbench::bench
