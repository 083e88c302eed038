#include "baselines/postgres_copy.h"

#include <arpa/inet.h>

#include <cstdint>
#include <utility>

#include "baselines/postgres_conn.h"

namespace flatbench::baselines {
namespace {

void PutU16(std::string* out, uint16_t v) {
  v = htons(v);
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

void PutU32(std::string* out, uint32_t v) {
  v = htonl(v);
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

Status PutCopyData(const PostgresServer& server, PGconn* conn,
                   std::string_view bytes, const std::string& what) {
  if (PQputCopyData(conn, bytes.data(), static_cast<int>(bytes.size())) == 1) {
    return Status::Ok();
  }
  // The server ended the COPY (an error): its result says why.
  Status st = PgDrainResults(server, conn, what);
  return st.ok() ? PgCheck(server, conn, nullptr, PGRES_COPY_IN, what) : st;
}

}  // namespace

void AppendCopyRow(std::string* out, std::string_view key,
                   std::string_view value) {
  PutU16(out, 2);
  PutU32(out, static_cast<uint32_t>(key.size()));
  out->append(key);
  PutU32(out, static_cast<uint32_t>(value.size()));
  out->append(value);
}

Status PgDrainResults(const PostgresServer& server, PGconn* conn,
                      const std::string& what) {
  Status st;
  while (PGresult* r = PQgetResult(conn)) {
    PgResult res(r);
    if (st.ok()) st = PgCheck(server, conn, r, PGRES_COMMAND_OK, what);
  }
  return st;
}

PgCopyStreams::PgCopyStreams(const PostgresServer& server, size_t streams)
    : server_(server), streams_(streams) {}

Result<std::unique_ptr<PgCopyStreams>> PgCopyStreams::Start(
    const PostgresServer& server, const std::vector<PGconn*>& conns,
    const std::string& table) {
  std::unique_ptr<PgCopyStreams> c(new PgCopyStreams(server, conns.size()));
  for (size_t i = 0; i < conns.size(); ++i) {
    Stream& s = c->streams_[i];
    s.conn = conns[i];
    s.what = "COPY " + table + " (connection " + std::to_string(i + 1) +
             " of " + std::to_string(conns.size()) + ")";
    // The streams already started abort their COPY when this one fails.
    FLATBENCH_RETURN_IF_ERROR(c->StartStream(&s, table));
    s.thread = std::thread([p = c.get(), &s] { p->Run(&s); });
  }
  return c;
}

PgCopyStreams::~PgCopyStreams() {
  {
    std::lock_guard lock(mu_);
    if (!closed_) failed_ = true;  // Abandoned: the COPYs are aborted.
  }
  Stop();
}

Status PgCopyStreams::StartStream(Stream* s, const std::string& table) {
  const std::string copy =
      "COPY " + table + " (k, v) FROM STDIN (FORMAT binary)";
  PgResult res(PQexec(s->conn, copy.c_str()));
  FLATBENCH_RETURN_IF_ERROR(
      PgCheck(server_, s->conn, res.get(), PGRES_COPY_IN, s->what));
  res.reset();
  Status st = PutCopyData(server_, s->conn,
                          {kPgCopyHeader, sizeof kPgCopyHeader}, s->what);
  if (!st.ok()) (void)PQputCopyEnd(s->conn, "flatbench: load stopped");
  return st;
}

void PgCopyStreams::Run(Stream* s) {
  Status st;
  bool abort = false;
  for (;;) {
    std::string chunk;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return failed_ || closed_ || !s->queue.empty(); });
      if (failed_) {
        abort = true;
        break;
      }
      if (s->queue.empty()) break;  // Closed, and every chunk sent.
      chunk = std::move(s->queue.front());
      s->queue.pop_front();
    }
    cv_.notify_all();  // Room in the queue.
    st = PutCopyData(server_, s->conn, chunk, s->what);
    if (!st.ok()) break;
  }
  if (st.ok() && !abort) {
    st = PutCopyData(server_, s->conn, {kPgCopyTrailer, sizeof kPgCopyTrailer},
                     s->what);
  }
  if (st.ok() && !abort) {
    st = PQputCopyEnd(s->conn, nullptr) == 1
             ? PgDrainResults(server_, s->conn, s->what)
             : PgCheck(server_, s->conn, nullptr, PGRES_COMMAND_OK,
                       s->what + " end");
  } else {
    // The server rolls the statement back: none of this stream's rows stay.
    (void)PQputCopyEnd(s->conn, "flatbench: load stopped");
    (void)PgDrainResults(server_, s->conn, s->what);
  }
  if (!st.ok()) Fail(std::move(st));
}

void PgCopyStreams::Fail(Status st) {
  {
    std::lock_guard lock(mu_);
    if (first_error_.ok()) first_error_ = std::move(st);
    failed_ = true;
  }
  cv_.notify_all();
}

Status PgCopyStreams::Add(std::string_view key, std::string_view value) {
  AppendCopyRow(&chunk_, key, value);
  if (++chunk_pairs_ < kPgChunkPairs) return Status::Ok();
  return HandChunk();
}

Status PgCopyStreams::HandChunk() {
  Stream& s = streams_[next_++ % streams_.size()];
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return failed_ || s.queue.size() < kPgQueueChunks; });
    if (failed_) {
      return first_error_.ok() ? Status::IOError(s.what + ": stopped")
                               : first_error_;
    }
    s.queue.push_back(std::move(chunk_));
  }
  cv_.notify_all();
  chunk_ = std::string();
  chunk_pairs_ = 0;
  return Status::Ok();
}

Status PgCopyStreams::Finish() {
  Status st;
  if (chunk_pairs_ > 0) st = HandChunk();
  {
    std::lock_guard lock(mu_);
    closed_ = true;
    if (!st.ok()) failed_ = true;
  }
  Stop();
  std::lock_guard lock(mu_);
  if (!first_error_.ok()) return first_error_;
  return st;
}

void PgCopyStreams::Stop() {
  cv_.notify_all();
  for (Stream& s : streams_) {
    if (s.thread.joinable()) s.thread.join();
  }
}

}  // namespace flatbench::baselines
