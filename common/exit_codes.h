#pragma once
// The exit contract: every code a flatbench command ends with, what it
// means, and which commands end with it. This table is the one place it is
// written: a Status's code (ExitCodeFor), the verdict's outcome
// (report::OutcomeExitCode), each command's --help, how a parent reads a
// child's exit (bench/child_process.h) and README.md's exit table (a test
// compares it with this table row by row) all follow it.
//
// One code means two things only where no reader can meet both: 0 is
// success and GO, and 1 is NO-GO (report, gonogo) and `get`'s "the key is
// absent". Nothing reads a verdict from an exit code: gonogo computes its
// report in its own process, and a parent that runs `get`, `verify`,
// `gen`, `bench` or `device` as a child takes an exit code as an answer
// only when that child's command documents it (Documents), so a child's
// 1 (a crash under a sanitizer exits 1) is never read as NO-GO or "absent"
// except from `get`, whose 1 means "absent".

#include <span>
#include <string>
#include <string_view>

namespace flatbench {

struct ExitRow {
  int code;                   // kSignalExit: 128 + N, for a stop by signal N.
  std::string_view name;      // A few words: "bad or corrupt data".
  std::string_view detail;    // More, or empty.
  std::string_view commands;  // kEveryCommand, or names joined by ", ".
  bool verdict = false;       // A verdict's outcome, not an error.
};

inline constexpr int kSignalExit = -1;
inline constexpr std::string_view kEveryCommand = "every command";

inline constexpr ExitRow kExitSuccess{0, "success", "", kEveryCommand};
inline constexpr ExitRow kExitGo{0, "GO", "the mmap reader's verdict",
                                 "report, gonogo", true};
inline constexpr ExitRow kExitNoGo{
    1, "NO-GO",
    "the mmap reader's verdict: a valid run with a check failing "
    "clear of its bound",
    "report, gonogo", true};
inline constexpr ExitRow kExitNotFound{1, "not found", "the key is absent",
                                       "get"};
inline constexpr ExitRow kExitInconclusive{
    2, "INCONCLUSIVE",
    "the mmap reader's verdict: a validity gate failed, or no check fails "
    "clearly and one is within noise; a sweep document's prediction "
    "report, which is never a verdict",
    "report, gonogo", true};
inline constexpr ExitRow kExitUsage{64, "usage error", "", kEveryCommand};
inline constexpr ExitRow kExitCorrupt{
    65, "bad or corrupt data",
    "also a --file that is not a regular file, such as /dev/null: it holds "
    "no arena; for report, also results it cannot trust: malformed, another "
    "results format, impossible values, fields that contradict each other, "
    "or files from another host, disk, build or run",
    kEveryCommand};
inline constexpr ExitRow kExitMissingInput{
    66, "missing input", "also a --dir that is not a directory", kEveryCommand};
inline constexpr ExitRow kExitChildFailed{
    70, "a child process failed",
    "a phase, worker or probe flatbench started was killed by a signal or "
    "ended with an exit code its command does not document, such as a "
    "sanitizer's report",
    "bench, gonogo, sweep"};
inline constexpr ExitRow kExitRefuseOverwrite{
    73, "refusing to overwrite",
    "also a run the disk or RAM cannot hold, refused by gonogo, sweep or "
    "device with the figures",
    kEveryCommand};
inline constexpr ExitRow kExitIOError{74, "I/O error", "", kEveryCommand};
inline constexpr ExitRow kExitStopped{
    kSignalExit, "stopped by signal N",
    "SIGINT 130, SIGTERM 143, SIGHUP 129; every child and server it started "
    "is stopped first",
    kEveryCommand};

inline constexpr ExitRow kExitRows[] = {
    kExitSuccess,         kExitGo,           kExitNoGo,
    kExitNotFound,        kExitInconclusive, kExitUsage,
    kExitCorrupt,         kExitMissingInput, kExitChildFailed,
    kExitRefuseOverwrite, kExitIOError,      kExitStopped};

// The code as README and --help write it: "65", or "128 + N".
std::string ExitCodeText(const ExitRow& row);
// "bad or corrupt data (for report, also ...)": the name, then the detail.
std::string ExitMeaningText(const ExitRow& row);
// Whether `row` is one `command` ends with.
bool RowApplies(const ExitRow& row, std::string_view command);
// The row that `command` means by exiting with `code`, or null when
// `command` does not document `code`. 128 + N for N in 1..64 is the
// stopped row.
const ExitRow* DocumentedExit(std::string_view command, int code);
// The exit codes of `command` as --help prints them, one row a line;
// `command` empty: every row, with its commands.
std::string ExitCodesHelp(std::string_view command);

}  // namespace flatbench
