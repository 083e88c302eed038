// The worker's writing step (worker_state.h WritingStep): the store copied
// beside itself (store_copy.h), the copy evicted in cold mode, opened live,
// read while it takes blocks (writing_pass.h), and removed.
#include <cstdio>

#include "bench/key_plan.h"
#include "bench/page_cache.h"
#include "bench/pass.h"
#include "bench/store_copy.h"
#include "bench/worker_state.h"
#include "bench/writing_pass.h"
#include "common/results_writing.h"

namespace flatbench::bench {

Result<nlohmann::json> Worker::State::WritingStep(const Step& step) {
  if (!o.open_live) {
    return Status::Usage("writing: this worker cannot open a store live");
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto copy, StoreCopy::Make(dir));
  const bool warm = step.mode == Mode::kWarm;
  std::string label = "on a " + copy->method() + " of the store, ";
  if (warm) {
    label += "its files resident from the copy";
  } else {
    FLATBENCH_ASSIGN_OR_RETURN(auto copied, ListFiles(copy->dir()));
    EvictMethod method;
    FLATBENCH_RETURN_IF_ERROR(Evict(copied, &method, o.allow_drop_caches));
    label += "evicted by " + std::string(EvictMethodName(method));
  }
  WriterOptions wo;
  wo.merge_every = step.merge_every;
  wo.from_block = ds.spec().stream.blocks;
  wo.stop = nullptr;
  const uint64_t open_ns = NowNs();
  FLATBENCH_ASSIGN_OR_RETURN(
      auto store, o.open_live(name, copy->dir(),
                              Options(step.mode == Mode::kColdLazy), wo));
  datagen::Sampler sampler(ds.spec(), step.cell.table, datagen::KeyKind::kHit,
                           CellDrawSeed(o.draw_seed, step.cell));
  KeyPlan plan(sampler, step.cell.table, step.first_index, step.cell.threads,
               step.reads_per_thread);
  WritingSpec spec;
  spec.threads = step.cell.threads;
  spec.table = step.cell.table;
  spec.reads_per_thread = step.reads_per_thread;
  spec.plan = &plan;
  spec.sampler = &sampler;
  spec.first_index = step.first_index;
  spec.spec = ds.spec();
  spec.store = store.get();
  spec.block_rate = step.block_rate;
  spec.store_open_ns = open_ns;
  spec.corrupt_expected = o.corrupt_writing_checks;
  const double start_s = SinceOrigin(NowNs());
  FLATBENCH_ASSIGN_OR_RETURN(nlohmann::json entry, RunWritingPass(spec));
  const std::string pass_name =
      PassName(CellNameOf(name, step.cell, step.mode, step.repetition));
  if (entry[results::KeyOf(results::kWritingCapHit)] == 1) {
    std::fprintf(stderr,
                 "bench: %s: the writing pass reached its cap of %.0f s "
                 "before %s\n",
                 pass_name.c_str(), kWritingCapSeconds,
                 store->Merges() ? "a merge ended" : "its reads were made");
  }
  store.reset();  // Closed before its copy goes.
  entry["name"] = pass_name;
  entry["run_name"] = pass_name;
  entry["run_type"] = "iteration";
  entry["iterations"] =
      static_cast<uint64_t>(step.cell.threads) * step.reads_per_thread;
  entry["label"] = label + "; the stream's blocks applied while it is read";
  entry[results::KeyOf(results::kThreads)] = step.cell.threads;
  entry[results::KeyOf(results::kRepetition)] = step.repetition;
  entry[results::KeyOf(results::kPassStartS)] = start_s;
  return nlohmann::json::array({std::move(entry)});
}

}  // namespace flatbench::bench
