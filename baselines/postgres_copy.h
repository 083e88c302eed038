#pragma once
// Binary COPY rows for the PostgreSQL loader, and one table's COPY on
// several connections at once.
//
// PgCopyStreams takes the caller's pairs (one thread, key order), encodes
// them as COPY rows and cuts them into chunks of kPgChunkPairs pairs, which
// it hands round-robin to one thread per connection through a queue of at
// most kPgQueueChunks chunks each: memory is at most
// streams * (kPgQueueChunks + 1) + 1 chunks (about 2 MB each). Each thread
// runs COPY ... FROM STDIN (FORMAT binary) on its own connection, as one
// statement. The first failure (naming the table and the connection) stops
// the other streams: their COPY is aborted, so the server keeps none of
// their rows.

#include <libpq-fe.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "baselines/postgres_server.h"
#include "common/status.h"

namespace flatbench::baselines {

// PGCOPY signature, flags field, header extension length.
inline constexpr char kPgCopyHeader[19] = {
    'P',  'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n',
    '\0', 0,   0,   0,   0,   0,   0,    0,      0};
// The trailer: a field count of -1.
inline constexpr char kPgCopyTrailer[2] = {'\377', '\377'};
inline constexpr size_t kPgChunkPairs = 16384;
inline constexpr size_t kPgQueueChunks = 2;

// Appends one (k, v) row of a binary COPY to `out`.
void AppendCopyRow(std::string* out, std::string_view key,
                   std::string_view value);

// Reads every result of the statement in flight on `conn`: Ok when each
// is PGRES_COMMAND_OK, else the first failure (PgCheck's, naming `what`).
Status PgDrainResults(const PostgresServer& server, PGconn* conn,
                      const std::string& what);

class PgCopyStreams {
 public:
  // Starts COPY into `table` on each of `conns` (at least one; each idle,
  // outside any transaction, and outliving this object) and a thread per
  // connection.
  static Result<std::unique_ptr<PgCopyStreams>> Start(
      const PostgresServer& server, const std::vector<PGconn*>& conns,
      const std::string& table);
  ~PgCopyStreams();  // Aborts the COPYs not finished; joins the threads.
  PgCopyStreams(const PgCopyStreams&) = delete;
  PgCopyStreams& operator=(const PgCopyStreams&) = delete;

  // The next pair, in key order. The first stream's error once one failed.
  Status Add(std::string_view key, std::string_view value);
  // Ends every COPY and waits for the threads: Ok when every stream's rows
  // are in, else the first failure.
  Status Finish();

 private:
  struct Stream {
    PGconn* conn = nullptr;
    std::string what;  // "COPY account (connection 2 of 4)"
    std::deque<std::string> queue;
    std::thread thread;
  };

  PgCopyStreams(const PostgresServer& server, size_t streams);
  Status StartStream(Stream* s, const std::string& table);
  void Run(Stream* s);
  void Fail(Status st);
  Status HandChunk();
  void Stop();

  const PostgresServer& server_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool closed_ = false;  // No more chunks (under mu_).
  bool failed_ = false;  // A stream failed, or the copy is abandoned.
  Status first_error_;   // Under mu_.
  std::string chunk_;
  size_t chunk_pairs_ = 0;
  size_t next_ = 0;
  // Last: the threads are joined before anything they use goes.
  std::vector<Stream> streams_;
};

}  // namespace flatbench::baselines
