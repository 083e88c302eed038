#pragma once
// Two figures set a cold pass's rate against its own files' device rate
// (the device cell of the same backend, table, threads and repetition;
// RESEARCH.md §5), each under its own name:
//
//   device-side efficiency   storage reads/s over the device rate, where
//                            storage reads/s = read requests the device
//                            completed per hit x hits/s (batches: per key
//                            x keys/s, over the device rate at depth B).
//                            The share of the device's reads the pass
//                            used: at most about 1 when it is
//                            storage-bound. Requests, not bytes / 4 KiB:
//                            one 12 KiB block read costs the device one
//                            request, as a device cell's 4 KiB read does.
//                            Results without the request count fall back
//                            to 4 KiB pages read per hit.
//   hit rate ÷ device rate   hits/s over the device rate (io_efficiency;
//                            batches: keys/s, batch_io_efficiency). Not a
//                            fraction: a pass that reads fewer pages than
//                            it has hits (a cache, a small table revisited)
//                            exceeds 1.

#include "report/run_data.h"

namespace flatbench::report {

// The pass's 4 KiB pages read from storage per read: max of major faults
// per read and bytes read per read / 4096, NaN when neither was recorded.
double PassPagesPerRead(const Pass& pass);

// The pass's storage reads per read (per MultiGet call on a batch): the
// device's read requests per read when recorded, else PassPagesPerRead.
double PassStorageReadsPerRead(const Pass& pass);

// The pass's device-side efficiency, NaN when it has no device rate (not a
// cold hit or batch, or no device cells) or no storage read figure.
double DeviceSideEfficiency(const Pass& pass);

}  // namespace flatbench::report
