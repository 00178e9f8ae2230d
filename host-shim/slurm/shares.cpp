// shares.cpp - see mfprio_slurm_shares.h.  mfprio's code under mfprio's
// licence: no Slurm header, only plugin/core's share tree and algorithms.
#include "mfprio_slurm_shares.h"

#include <cstdio>
#include <exception>

#include "share_tree.hpp"

extern "C" int mfs_shares_compute(mfs_share_node_t* nodes, size_t n, int algo, double dampening, char* err,
                                  size_t errlen) {
  try {
    mfprio::ShareTree tree;
    for (size_t i = 0; i < n; ++i)
      tree.add(nodes[i].parent, nodes[i].is_user != 0, nodes[i].shares, nodes[i].usage, nodes[i].shares_parent != 0);
    tree.finalize();
    mfprio::FairShareParams params;
    params.algo = algo == MFS_SHARES_FAIR_TREE       ? mfprio::FairShareAlgo::FairTree
                  : algo == MFS_SHARES_DEPTH_OBLIVIOUS ? mfprio::FairShareAlgo::DepthOblivious
                                                       : mfprio::FairShareAlgo::Classic;
    params.dampening = dampening > 0.0 ? dampening : 1.0;
    mfprio::ShareResult out;
    mfprio::compute_fair_share(tree, params, out);
    for (size_t i = 0; i < n; ++i) {
      nodes[i].usage_norm = out.norm_usage[i];
      nodes[i].usage_efctv = out.eff_usage[i];
      nodes[i].level_fs = out.level_fs[i];
      nodes[i].fs_factor = out.fairshare[i];
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(err, errlen, "%s", e.what());
  } catch (...) {
    std::snprintf(err, errlen, "unexpected error");
  }
  return -1;
}
