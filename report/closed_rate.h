#pragma once
// Reads/s of readers that each wait for one read at a time, on a host whose
// CPUs every read needs: the price of a read that the structural prediction
// (prediction/structural.h) and the device at which a check passes
// (verdict/passing_latency.h) both use (RESEARCH.md section 10, "Readers
// queue for the cores").

namespace flatbench::report {

// Reads/s of `threads` closed-loop readers, each read needing `demand`
// seconds of one of `cpus` CPUs and then `delay` seconds of no CPU: mean
// value analysis, with the cpus by Seidmann's approximation (one queue of
// demand / cpus and a delay of demand x (cpus - 1) / cpus). 1 / (demand +
// delay) at one thread, threads / delay without demand, and towards
// cpus / demand with many threads, below both bounds where they meet.
double ClosedRate(int threads, double demand, double cpus, double delay);

}  // namespace flatbench::report
