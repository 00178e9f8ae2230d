// fuzz_cli.cpp - libFuzzer: mfprio-host's command line and the Slurm format
// strings it takes (sprio -o/-S, sshare -o), then the formatters over a
// small fixed table with whatever format parsed.  Input: arguments separated
// by newlines.  Any bytes: a usage error or output, never a crash, leak, UB
// or an allocation beyond what the format's widths ask for.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "layout_slurm2205.hpp"
#include "views.hpp"

using namespace mfprio::host;

namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size() && out.size() < 64) {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) nl = s.size();
    out.push_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::vector<SprioRow> rows() {
  std::vector<SprioRow> r(3);
  const char* users[] = {"alice", "a-very-long-user-name-past-any-width", ""};
  for (size_t i = 0; i < r.size(); ++i) {
    r[i].job_id = 1000 + i;
    r[i].partition = i ? "batch" : "gpu";
    r[i].user = users[i];
    r[i].account = "acct";
    r[i].f.priority = static_cast<uint32_t>(562 + i);
  }
  return r;
}

ShareTable share_table() {
  ShareTable t;
  for (const char* c : {"RawShares", "NormShares", "RawUsage", "NormUsage", "EffectvUsage", "FairShare", "LevelFS"}) {
    ShareColumn col;
    col.name = c;
    col.label = c;
    col.decimals = 6;
    t.columns.push_back(col);
  }
  for (int i = 0; i < 3; ++i) {
    ShareRow row;
    row.parent = i - 1;
    row.depth = static_cast<uint32_t>(i);
    row.is_user = i == 2;
    row.account = i ? "physics" : "root";
    row.user = i == 2 ? "bob" : "";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      ShareCell cell;
      cell.value = i == 1 && c == 6 ? 1.0 / 0.0 : 0.5 * static_cast<double>(c + 1) * 1e3;
      row.cells.push_back(cell);
    }
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> args = split_lines(std::string(reinterpret_cast<const char*>(data), size));
  try {
    (void)parse_cli(args);
  } catch (const UsageError&) {
  } catch (const std::exception&) {
  }
  // The first line as each format string the views accept.
  const std::string& spec = args.empty() ? std::string() : args[0];
  Weights w;
  try {
    SprioFormat f = parse_sprio_format(spec);
    size_t width = 0;
    for (const SprioField& fld : f.fields) width += static_cast<size_t>(fld.width > 0 ? fld.width : 0);
    if (width < (1u << 16)) {
      SprioOptions opt;
      std::vector<SprioRow> r = rows();
      (void)format_sprio_slurm(r, f, opt, w);
      opt.normalized = true;
      (void)format_sprio_slurm(r, f, opt, w);
    }
  } catch (const std::exception&) {
  }
  try {
    std::vector<SprioRow> r = rows();
    sort_sprio_rows(&r, spec);
  } catch (const std::exception&) {
  }
  try {
    std::vector<ShareField> fields = parse_sshare_format(spec);
    size_t width = 0;
    for (const ShareField& fld : fields) width += static_cast<size_t>(fld.len < 0 ? -static_cast<int64_t>(fld.len) : fld.len);
    if (width < (1u << 16)) {
      SshareSlurmOptions opt;
      (void)format_sshare_slurm(share_table(), fields, opt);
      opt.parsable = true;
      (void)format_sshare_slurm(share_table(), fields, opt);
    }
  } catch (const std::exception&) {
  }
  return 0;
}
