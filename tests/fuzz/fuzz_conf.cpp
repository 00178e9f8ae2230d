// fuzz_conf.cpp - libFuzzer: the slurm.conf reader (common/conf.cpp) and
// what is built from its pairs (common/slurm_conf.cpp): the Priority*/TRES
// key check, NodeName/PartitionName/NodeSet records with DEFAULT lines, host
// lists, node and partition totals.  Any bytes: ConfError/ConfigError or a
// result, never a crash, leak or UB.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "conf.hpp"
#include "slurm_conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mfprio::Conf c;
  try {
    c = mfprio::Conf::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz.conf");
    std::string origin;
    (void)mfprio::store_location(c.pairs(), &origin);
  } catch (const mfprio::ConfError&) {
    return 0;
  }
  mfprio::ConfErrors errors;
  mfprio::check_slurm_keys(c.pairs(), &errors);
  (void)errors.joined();
  errors.sort_by_position();
  try {
    const auto node_records = mfprio::conf_records(c.pairs(), "NodeName");
    const auto lines = mfprio::node_lines(node_records);
    (void)mfprio::sum_nodes(lines);
    const auto hosts = mfprio::index_hosts(lines);
    const auto nodesets = mfprio::conf_records(c.pairs(), "NodeSet");
    for (const auto& p : mfprio::conf_records(c.pairs(), "PartitionName")) {
      mfprio::NodeTotals t;
      try {
        (void)mfprio::partition_totals(p, lines, hosts, nodesets, &t);
      } catch (const mfprio::ConfError&) {
      }
    }
  } catch (const mfprio::ConfError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
