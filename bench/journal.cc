#include "bench/journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <optional>

#include "bench/plan.h"
#include "common/hex.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

using nlohmann::json;

constexpr std::string_view kMagic = "FBJ1 ";
// Format 1 had no record numbers, so a record deleted from its middle went
// unseen; it is refused rather than read without that check.
constexpr int kFormat = 2;
constexpr char kStartOver[] =
    "; to resume, rerun with the journal's flags, or add --fresh to start "
    "over (it removes the journal)";

// The line's framing ahead of its payload: the payload's declared length
// and checksum. Nullopt when the magic, length or spacing is wrong.
struct Prefix {
  size_t payload_bytes = 0;
  std::string_view sum;
  size_t size = 0;  // Bytes of the prefix itself.
};
std::optional<Prefix> ParsePrefix(std::string_view line) {
  if (line.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  Prefix p;
  const char* digits = line.data() + kMagic.size();
  auto [end, ec] =
      std::from_chars(digits, line.data() + line.size(), p.payload_bytes);
  if (ec != std::errc() || end == digits) return std::nullopt;
  const size_t at = static_cast<size_t>(end - line.data());
  if (line.size() < at + 18 || line[at] != ' ' || line[at + 17] != ' ') {
    return std::nullopt;
  }
  p.sum = line.substr(at + 1, 16);
  p.size = at + 18;
  return p;
}

// The payload of one line (without its newline), or nullopt when its
// length, checksum or JSON is wrong.
std::optional<json> ParseLine(std::string_view line) {
  const std::optional<Prefix> prefix = ParsePrefix(line);
  if (!prefix) return std::nullopt;
  const std::string_view payload = line.substr(prefix->size);
  if (payload.size() != prefix->payload_bytes ||
      prefix->sum != Hex64(XXH3_64bits(payload.data(), payload.size()))) {
    return std::nullopt;
  }
  json j = json::parse(payload, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("type") ||
      !j["type"].is_string()) {
    return std::nullopt;
  }
  return j;
}

// Whether `tail`, the bytes from the start of the last line that does not
// parse to the end of the file, can be a torn append: the beginning of one
// record whose write() stopped short, or whose bytes a crash left wrong.
// It cannot when it is longer than the record its framing declares, or
// when an intact record ends it: then it holds the start of another
// record, so the line before that lost its newline.
bool CanBeTorn(std::string_view tail) {
  if (const std::optional<Prefix> p = ParsePrefix(tail)) {
    const size_t rest = tail.size() - p->size;  // Payload, newline, more?
    if (rest > p->payload_bytes && rest - p->payload_bytes > 1) return false;
  }
  if (tail.empty() || tail.back() != '\n') return true;
  const std::string_view body = tail.substr(0, tail.size() - 1);
  for (size_t at = body.find(kMagic, 1); at != std::string_view::npos;
       at = body.find(kMagic, at + 1)) {
    if (ParseLine(body.substr(at))) return false;
  }
  return true;
}

Status CutTornTail(const std::string& path, uint64_t keep) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.ok()) return Status::FromErrno(path);
  if (::ftruncate(fd.get(), static_cast<off_t>(keep)) != 0 ||
      ::fsync(fd.get()) != 0) {
    return Status::FromErrno(path + ": cutting a torn record off");
  }
  return Status::Ok();
}

Status CheckFormat(const json& header, const std::string& where) {
  const auto it = header.find("format");
  if (it != header.end() && it->is_number_integer() &&
      it->get<int64_t>() == kFormat) {
    return Status::Ok();
  }
  return Status::Corruption(
      where + ": journal format " +
      (it == header.end() ? std::string("(none)") : it->dump()) +
      ", this flatbench reads format " + std::to_string(kFormat) +
      " only (numbered records), so it cannot resume this run; add --fresh "
      "to start over (it removes the journal)");
}

// Records are numbered from 0 (the header) in the order they were
// appended, so a record deleted, repeated or moved shows as a number
// other than its position.
Status CheckNumber(const json& r, size_t expected, const std::string& where) {
  const auto it = r.find("seq");
  if (it == r.end() || !it->is_number_unsigned()) {
    return Status::Corruption(where + ": record without a sequence number" +
                              kStartOver);
  }
  const uint64_t seq = it->get<uint64_t>();
  if (seq == expected) return Status::Ok();
  const std::string got = "record " + std::to_string(seq) + " where record " +
                          std::to_string(expected) + " belongs: ";
  if (seq > expected) {
    const uint64_t lost = seq - expected;
    return Status::Corruption(where + ": " + got + std::to_string(lost) +
                              (lost == 1 ? " record is" : " records are") +
                              " missing before it" + kStartOver);
  }
  return Status::Corruption(where + ": " + got +
                            "a record repeated or out of order" + kStartOver);
}

Result<JournalHeader> HeaderFromJson(const json& j, const std::string& where) {
  JournalHeader h;
  try {
    // Journals written before the header held the request have "flags".
    auto request = j.contains("request") ? RunRequestFromJson(j.at("request"))
                                         : RequestFromFlags(j.at("flags"));
    if (!request.ok()) {
      return Status::Corruption(where + ": " + request.status().message() +
                                kStartOver);
    }
    h.request = std::move(request).value();
    h.identity = j.at("identity");
    h.started = j.at("started").get<double>();
    h.run_start = j.at("run_start").get<std::string>();
    if (!h.identity.is_object()) {
      return Status::Corruption(where + ": identity not an object");
    }
    auto schedule = ScheduleFromJson(j.at("schedule"));
    if (!schedule.ok()) return schedule.status().WithContext(where);
    h.schedule = std::move(schedule).value();
  } catch (const json::exception& e) {
    return Status::Corruption(where + ": " + e.what());
  }
  return h;
}

// Applies one intact record after the header.
Status Apply(const json& r, const std::string& where, size_t steps,
             std::optional<Interruption>* pending, JournalState* s) {
  try {
    const std::string type = r.at("type").get<std::string>();
    if (type == "pass") {
      const size_t step = r.at("step").get<size_t>();
      const json& entries = r.at("entries");
      if (step >= steps || !entries.is_array() || s->passes.count(step)) {
        return Status::Corruption(where + ": step " + std::to_string(step) +
                                  " is not a new step of the schedule's " +
                                  std::to_string(steps));
      }
      s->passes[step] = entries;
      s->order.push_back(step);
      s->last = r.at("at").get<double>();
      if (pending->has_value()) {
        s->interruptions.push_back(**pending);
        pending->reset();
      }
    } else if (type == "resume") {
      Interruption i;
      i.since = r.at("since").get<double>();
      i.resumed = r.at("resumed").get<double>();
      i.step = r.at("step").get<size_t>();
      i.pass = r.at("pass").get<std::string>();
      *pending = i;  // A session that ran nothing: the next one's gap.
    } else {
      return Status::Corruption(where + ": unknown record type '" + type + "'");
    }
  } catch (const json::exception& e) {
    return Status::Corruption(where + ": " + e.what());
  }
  return Status::Ok();
}

json HeaderToJson(const JournalHeader& h) {
  return {{"type", "header"},
          {"format", kFormat},
          {"request", RunRequestToJson(h.request)},
          {"identity", h.identity},
          {"schedule", ScheduleToJson(h.schedule)},
          {"started", h.started},
          {"run_start", h.run_start}};
}

}  // namespace

std::string JournalPathFor(const std::string& out) { return out + ".journal"; }

double WallNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

size_t StepCount(const std::vector<Phase>& phases) {
  size_t n = 0;
  for (const auto& p : phases) n += p.steps.size();
  return n;
}

std::string JournalLine(const json& payload) {
  const std::string p =
      payload.dump(-1, ' ', false, json::error_handler_t::replace);
  return std::string(kMagic) + std::to_string(p.size()) + " " +
         Hex64(XXH3_64bits(p.data(), p.size())) + " " + p + "\n";
}

Result<JournalState> ReadJournal(const std::string& path) {
  FLATBENCH_ASSIGN_OR_RETURN(const std::string text, ReadSmallFile(path));
  JournalState s;
  std::optional<Interruption> pending;
  size_t pos = 0, line_no = 0, steps = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    const bool last = nl == std::string::npos || nl + 1 == text.size();
    std::optional<json> rec;
    if (nl != std::string::npos) {
      rec = ParseLine(std::string_view(text).substr(pos, nl - pos));
    }
    const std::string where = path + ": line " + std::to_string(line_no);
    if (!rec) {
      if (!last || line_no == 1 ||
          !CanBeTorn(std::string_view(text).substr(pos))) {
        return Status::Corruption(
            where + ": damaged record (length, checksum or newline wrong)" +
            kStartOver);
      }
      // A torn append: the step it recorded runs again.
      s.torn_bytes = text.size() - pos;
      FLATBENCH_RETURN_IF_ERROR(CutTornTail(path, pos));
      break;
    }
    if (line_no == 1) {
      if (rec->value("type", "") != "header") {
        return Status::Corruption(where + ": not a journal header" +
                                  kStartOver);
      }
      FLATBENCH_RETURN_IF_ERROR(CheckFormat(*rec, where));
    }
    FLATBENCH_RETURN_IF_ERROR(CheckNumber(*rec, s.records, where));
    ++s.records;
    if (line_no == 1) {
      FLATBENCH_ASSIGN_OR_RETURN(s.header, HeaderFromJson(*rec, where));
      steps = StepCount(s.header.schedule);
      s.last = s.header.started;
    } else {
      FLATBENCH_RETURN_IF_ERROR(Apply(*rec, where, steps, &pending, &s));
    }
    pos = nl + 1;
  }
  if (s.records == 0) {
    return Status::Corruption(path + ": empty journal" + kStartOver);
  }
  return s;
}

Result<std::unique_ptr<JournalWriter>> JournalWriter::Create(
    const std::string& path, const JournalHeader& header) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    return Status::RefuseOverwrite(path + ": a journal exists already");
  }
  json first = HeaderToJson(header);
  first["seq"] = 0;
  FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(path, JournalLine(first)));
  return OpenAt(path, 1);
}

Result<std::unique_ptr<JournalWriter>> JournalWriter::Open(
    const std::string& path, const JournalState& state) {
  return OpenAt(path, state.records);
}

Result<std::unique_ptr<JournalWriter>> JournalWriter::OpenAt(
    const std::string& path, uint64_t next_seq) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(path);
  return std::unique_ptr<JournalWriter>(new JournalWriter(path, fd, next_seq));
}

Status JournalWriter::Pass(size_t step, double at, const json& entries) {
  return Append(
      {{"type", "pass"}, {"step", step}, {"at", at}, {"entries", entries}});
}

Status JournalWriter::Resume(const Interruption& gap) {
  return Append({{"type", "resume"},
                 {"since", gap.since},
                 {"resumed", gap.resumed},
                 {"step", gap.step},
                 {"pass", gap.pass}});
}

Status JournalWriter::Append(json payload) {
  payload["seq"] = next_seq_;
  const std::string line = JournalLine(payload);
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd_.get(), line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(path_ + ": append");
    off += static_cast<size_t>(n);
  }
  if (::fdatasync(fd_.get()) != 0) {
    return Status::FromErrno(path_ + ": fdatasync");
  }
  ++next_seq_;
  return Status::Ok();
}

}  // namespace flatbench::bench
