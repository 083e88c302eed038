// libpq loaded on first use. Linked as usual, libpq and the 21
// libraries it needs (Kerberos, LDAP, GnuTLS and theirs) are mapped and
// relocated at the start of every flatbench process, and of every child a
// benchmark starts, although only the PostgreSQL backend calls them: about
// a third of the binary's start (RESEARCH.md section 12). Neither GNU ld
// nor a Debian package defers a library to its first use, so this file
// does: it defines each libpq function the project calls, with
// libpq-fe.h's signature, as a call through a pointer that LoadLibpq
// resolves with dlopen and dlsym. The build takes libpq's headers and does
// not link it (baselines/meson.build).

#include "baselines/postgres_libpq.h"

#include <dlfcn.h>
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace flatbench::baselines {
namespace {

// libpq's soname since PostgreSQL 8.0 (Debian's package libpq5).
constexpr char kLibpqSoname[] = "libpq.so.5";

// The functions the project calls, as loaded.
struct LibpqFunctions {
  decltype(&::PQconnectdbParams) connectdb_params = nullptr;
  decltype(&::PQstatus) status = nullptr;
  decltype(&::PQerrorMessage) error_message = nullptr;
  decltype(&::PQfinish) finish = nullptr;
  decltype(&::PQexec) exec = nullptr;
  decltype(&::PQexecParams) exec_params = nullptr;
  decltype(&::PQprepare) prepare = nullptr;
  decltype(&::PQexecPrepared) exec_prepared = nullptr;
  decltype(&::PQgetResult) get_result = nullptr;
  decltype(&::PQputCopyData) put_copy_data = nullptr;
  decltype(&::PQputCopyEnd) put_copy_end = nullptr;
  decltype(&::PQresultStatus) result_status = nullptr;
  decltype(&::PQresultErrorMessage) result_error_message = nullptr;
  decltype(&::PQresultErrorField) result_error_field = nullptr;
  decltype(&::PQntuples) ntuples = nullptr;
  decltype(&::PQgetvalue) get_value = nullptr;
  decltype(&::PQgetlength) get_length = nullptr;
  decltype(&::PQgetisnull) get_is_null = nullptr;
  decltype(&::PQclear) clear = nullptr;
};

LibpqFunctions g_libpq;

// Sets `*fn` to the library's `name`; the first name not found goes to
// `*missing`.
template <typename Fn>
void ResolveLibpq(void* lib, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(::dlsym(lib, name));
  if (*fn == nullptr && missing->empty()) *missing = name;
}

Status LoadLibpqOnce() {
  void* lib = ::dlopen(kLibpqSoname, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return Status::MissingInput(
        std::string("postgres: cannot load ") + kLibpqSoname +
        " (Debian package libpq5): " + (why != nullptr ? why : "no reason"));
  }
  LibpqFunctions f;
  std::string missing;
  ResolveLibpq(lib, "PQconnectdbParams", &f.connectdb_params, &missing);
  ResolveLibpq(lib, "PQstatus", &f.status, &missing);
  ResolveLibpq(lib, "PQerrorMessage", &f.error_message, &missing);
  ResolveLibpq(lib, "PQfinish", &f.finish, &missing);
  ResolveLibpq(lib, "PQexec", &f.exec, &missing);
  ResolveLibpq(lib, "PQexecParams", &f.exec_params, &missing);
  ResolveLibpq(lib, "PQprepare", &f.prepare, &missing);
  ResolveLibpq(lib, "PQexecPrepared", &f.exec_prepared, &missing);
  ResolveLibpq(lib, "PQgetResult", &f.get_result, &missing);
  ResolveLibpq(lib, "PQputCopyData", &f.put_copy_data, &missing);
  ResolveLibpq(lib, "PQputCopyEnd", &f.put_copy_end, &missing);
  ResolveLibpq(lib, "PQresultStatus", &f.result_status, &missing);
  ResolveLibpq(lib, "PQresultErrorMessage", &f.result_error_message, &missing);
  ResolveLibpq(lib, "PQresultErrorField", &f.result_error_field, &missing);
  ResolveLibpq(lib, "PQntuples", &f.ntuples, &missing);
  ResolveLibpq(lib, "PQgetvalue", &f.get_value, &missing);
  ResolveLibpq(lib, "PQgetlength", &f.get_length, &missing);
  ResolveLibpq(lib, "PQgetisnull", &f.get_is_null, &missing);
  ResolveLibpq(lib, "PQclear", &f.clear, &missing);
  if (!missing.empty()) {
    ::dlclose(lib);
    return Status::MissingInput(std::string("postgres: ") + kLibpqSoname +
                                " has no function " + missing);
  }
  g_libpq = f;
  return Status::Ok();
}

// The loaded functions. Every libpq call takes a connection or a result of
// one, and PgConnect loads the library before it connects: a call before
// that is a bug in this program, reported before it stops.
const LibpqFunctions& Libpq() {
  if (g_libpq.clear == nullptr) {
    std::fputs("flatbench: a libpq function was called before LoadLibpq\n",
               stderr);
    std::abort();
  }
  return g_libpq;
}

}  // namespace

Status LoadLibpq() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] { status = LoadLibpqOnce(); });
  return status;
}

}  // namespace flatbench::baselines

// libpq-fe.h declares these with C linkage; each calls the loaded library.
using flatbench::baselines::Libpq;

PGconn* PQconnectdbParams(const char* const* keywords,
                          const char* const* values, int expand_dbname) {
  return Libpq().connectdb_params(keywords, values, expand_dbname);
}
ConnStatusType PQstatus(const PGconn* conn) { return Libpq().status(conn); }
char* PQerrorMessage(const PGconn* conn) { return Libpq().error_message(conn); }
void PQfinish(PGconn* conn) { Libpq().finish(conn); }
PGresult* PQexec(PGconn* conn, const char* query) {
  return Libpq().exec(conn, query);
}
PGresult* PQexecParams(PGconn* conn, const char* command, int n_params,
                       const Oid* param_types, const char* const* param_values,
                       const int* param_lengths, const int* param_formats,
                       int result_format) {
  return Libpq().exec_params(conn, command, n_params, param_types, param_values,
                             param_lengths, param_formats, result_format);
}
PGresult* PQprepare(PGconn* conn, const char* stmt_name, const char* query,
                    int n_params, const Oid* param_types) {
  return Libpq().prepare(conn, stmt_name, query, n_params, param_types);
}
PGresult* PQexecPrepared(PGconn* conn, const char* stmt_name, int n_params,
                         const char* const* param_values,
                         const int* param_lengths, const int* param_formats,
                         int result_format) {
  return Libpq().exec_prepared(conn, stmt_name, n_params, param_values,
                               param_lengths, param_formats, result_format);
}
PGresult* PQgetResult(PGconn* conn) { return Libpq().get_result(conn); }
int PQputCopyData(PGconn* conn, const char* buffer, int nbytes) {
  return Libpq().put_copy_data(conn, buffer, nbytes);
}
int PQputCopyEnd(PGconn* conn, const char* errormsg) {
  return Libpq().put_copy_end(conn, errormsg);
}
ExecStatusType PQresultStatus(const PGresult* res) {
  return Libpq().result_status(res);
}
char* PQresultErrorMessage(const PGresult* res) {
  return Libpq().result_error_message(res);
}
char* PQresultErrorField(const PGresult* res, int fieldcode) {
  return Libpq().result_error_field(res, fieldcode);
}
int PQntuples(const PGresult* res) { return Libpq().ntuples(res); }
char* PQgetvalue(const PGresult* res, int tup_num, int field_num) {
  return Libpq().get_value(res, tup_num, field_num);
}
int PQgetlength(const PGresult* res, int tup_num, int field_num) {
  return Libpq().get_length(res, tup_num, field_num);
}
int PQgetisnull(const PGresult* res, int tup_num, int field_num) {
  return Libpq().get_is_null(res, tup_num, field_num);
}
void PQclear(PGresult* res) { Libpq().clear(res); }
