// layout_sge81.cpp - see layout_sge81.hpp.  Column widths and number forms
// are Son of Grid Engine 8.1.9's qstat (checked byte for byte against the
// real qstat's output, tests/data/ge).
#include "layout_sge81.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "layout_slurm2205.hpp"
#include "stable_order.hpp"

namespace mfprio::host {
namespace {

// A term's value by column: the family's term named for it, found anywhere in
// the breakdown.  urg's parts read the contribution (the weighted part).
struct Cells {
  const SprioRow& row;
  const std::map<std::string, std::string>& terms;
  const mfprio_term_t* find(const char* column) const {
    auto it = terms.find(column);
    const std::string& name = it == terms.end() ? std::string(column) : it->second;
    for (uint32_t i = 0; i < row.f.term_count && i < MFPRIO_MAX_TERMS; ++i)
      if (name == row.f.terms[i].name) return &row.f.terms[i];
    return nullptr;
  }
  double num(const char* column) const {
    const mfprio_term_t* t = find(column);
    if (!t) return 0;
    const bool part = !std::strcmp(column, "rrcontr") || !std::strcmp(column, "wtcontr") ||
                      !std::strcmp(column, "dlcontr");
    return part ? t->contribution : t->factor;
  }
  std::string text(const char* column, const char* otherwise) const {
    const mfprio_term_t* t = find(column);
    return t && t->text[0] ? std::string(t->text) : std::string(otherwise);
  }
};

void put(std::string* out, const char* f, ...) __attribute__((format(printf, 2, 3)));
void put(std::string* out, const char* f, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, f);
  const int n = std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  if (n > 0) out->append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

// qstat's urgency columns: an integer in 8, three significant digits past 99999999.
void opti8(std::string* out, double v) {
  if (v > 99999999) put(out, "%8.3g ", v);
  else put(out, "%8.0f ", v);
}

// MM/DD/YYYY HH:MM:SS in local time (qstat's sge_ctime).
std::string qstat_time(int64_t t) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm{};
  localtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%m/%d/%Y %H:%M:%S", &tm);
  return buf;
}

const char* state_text(uint32_t s) {
  switch (s) {
    case MFPRIO_JOB_HELD: return "hqw";
    case MFPRIO_JOB_RUNNING: return "r";
    case MFPRIO_JOB_SUSPENDED: return "s";
    default: return "qw";
  }
}

constexpr int kQueueWidth = 30;  // qstat's longest_queue_length default

void header(std::string* out, QstatView v) {
  const bool pri = v == QstatView::Pri, urg = v == QstatView::Urg, ext = v == QstatView::Ext;
  const bool time_col = !ext || pri || urg;
  put(out, "%-7.7s %s %s%s%s%s%s %-10.10s %-12.12s %s%-5.5s %s%s%s%s%s%s%s%s%s%-*.*s %s %s", "job-ID", "prior ",
      pri || urg ? " nurg   " : "", pri ? " npprior" : "", pri || ext ? " ntckts " : "",
      urg ? " urg      rrcontr  wtcontr  dlcontr " : "", pri ? "  ppri" : "", "name", "user",
      ext ? "project          department " : "", "state", time_col ? "submit/start at     " : "",
      urg ? " deadline           " : "", ext ? "cpu        mem     io      " : "", ext ? "tckts " : "",
      ext ? "ovrts " : "", ext ? "otckt " : "", ext ? "ftckt " : "", ext ? "stckt " : "", ext ? "share " : "",
      kQueueWidth, kQueueWidth, "queue", "slots", "ja-task-ID ");
  out->push_back('\n');
  out->append(93, '-');                // the plain table's rule
  out->append(kQueueWidth - 10, '-');  // grows with the queue column
  if (ext) out->append(79, '-');
  if (urg) out->append(64, '-');
  if (pri) out->append(35, '-');
  out->push_back('\n');
}

void row_text(std::string* out, const SprioRow& r, QstatView v, const std::map<std::string, std::string>& terms) {
  const bool pri = v == QstatView::Pri, urg = v == QstatView::Urg, ext = v == QstatView::Ext;
  const Cells c{r, terms};
  const bool running = r.state == MFPRIO_JOB_RUNNING || r.state == MFPRIO_JOB_SUSPENDED;
  put(out, "%7d ", static_cast<int>(r.job_id));
  put(out, "%7.5f ", c.num("prior"));
  if (pri || urg) put(out, "%7.5f ", c.num("nurg"));
  if (pri) put(out, "%7.5f ", c.num("npprior"));
  if (pri || ext) put(out, "%7.5f ", c.num("ntckts"));
  if (urg)
    for (const char* col : {"urg", "rrcontr", "wtcontr", "dlcontr"}) opti8(out, c.num(col));
  if (pri) put(out, "%5d ", static_cast<int>(c.num("ppri")));
  put(out, "%-10.10s ", r.name.c_str());
  put(out, "%-12.12s ", r.user.c_str());
  if (ext) {
    put(out, "%-16.16s ", r.account.empty() ? "NA" : r.account.c_str());
    put(out, "%-10.10s ", c.text("department", "NA").c_str());
  }
  put(out, "%-5.5s ", state_text(r.state));
  if (!ext || pri || urg) put(out, "%s ", qstat_time(running ? r.start : r.submit).c_str());
  if (urg) {
    if (r.deadline) put(out, "%s ", qstat_time(r.deadline).c_str());
    else out->append(20, ' ');
  }
  if (ext) {
    // No usage reaches the host: pending jobs print blank, running ones NA.
    put(out, "%-10.10s ", running ? "NA" : "");
    put(out, "%-7.7s ", running ? "NA" : "");
    put(out, "%-7.7s ", running ? "NA" : "");
    for (const char* col : {"tckts", "ovrts", "otckt", "ftckt", "stckt"}) put(out, "%5d ", static_cast<int>(c.num(col)));
    put(out, "%-5.2f ", c.num("share"));
  }
  put(out, "%-*.*s ", kQueueWidth, kQueueWidth, running ? r.partition.c_str() : "");
  put(out, "%5d ", static_cast<int>(c.num("slots")));
  out->append(7, ' ');  // ja-task-ID: no array tasks
  out->push_back('\n');
}

QstatView view_of(const std::string& name) {
  if (name == "pri") return QstatView::Pri;
  if (name == "urg") return QstatView::Urg;
  if (name == "ext") return QstatView::Ext;
  throw std::invalid_argument("no view " + name);
}

class Sge81Layout final : public Layout {
 public:
  const char* name() const override { return "sge-8.1.9"; }
  bool sprio(const std::vector<SprioRow>& rows, const Options& o, const ViewInfo& v, std::string* out) const override {
    if (o.view.empty()) return false;  // the generic columns
    std::vector<SprioRow> shown = rows;
    if (o.sort.empty()) sort_qstat_rows(&shown, v.terms);
    *out = format_qstat(shown, view_of(o.view), v.terms, !o.noheader);
    return true;
  }
  bool sshare(const mfprio_share_table_t&, const Options&, const ViewInfo&,
              const std::function<bool(const mfprio_share_row_t&)>&, std::FILE*) const override {
    return false;  // the family's share-monitor columns, generic
  }
  void sort(std::vector<SprioRow>* rows, const std::string& spec, const ViewInfo& v) const override {
    slurm2205_layout().sort(rows, spec, v);
  }
  void check(const Options&) const override {}
  std::string helpformat(Command) const override { return ""; }
  std::vector<std::string> views() const override { return {"pri", "urg", "ext"}; }
};

}  // namespace

std::string format_qstat(const std::vector<SprioRow>& rows, QstatView view,
                         const std::map<std::string, std::string>& terms, bool with_header) {
  std::string out;
  if (with_header && !rows.empty()) header(&out, view);  // qstat prints no header without jobs
  for (const SprioRow& r : rows) row_text(&out, r, view, terms);
  return out;
}

void sort_qstat_rows(std::vector<SprioRow>* rows, const std::map<std::string, std::string>& terms) {
  struct Key {
    bool pending;
    double prio;
    int64_t submit;
    uint64_t id;
    size_t at;
  };
  std::vector<Key> keys;
  keys.reserve(rows->size());
  for (size_t i = 0; i < rows->size(); ++i) {
    const SprioRow& r = (*rows)[i];
    const bool pending = r.state != MFPRIO_JOB_RUNNING && r.state != MFPRIO_JOB_SUSPENDED;
    keys.push_back(Key{pending, pending ? Cells{r, terms}.num("prior") : 0.0, pending ? r.submit : 0, r.job_id, i});
  }
  mfprio::stable_order(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.pending != b.pending) return b.pending;  // qstat lists the running jobs first
    if (a.prio != b.prio) return a.prio > b.prio;
    if (a.submit != b.submit) return a.submit < b.submit;
    return a.id < b.id;
  });
  std::vector<SprioRow> sorted;
  sorted.reserve(rows->size());
  for (const Key& k : keys) sorted.push_back(std::move((*rows)[k.at]));
  *rows = std::move(sorted);
}

const Layout& sge81_layout() {
  static const Sge81Layout layout;
  return layout;
}

}  // namespace mfprio::host
