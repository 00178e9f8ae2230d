// store_batch.hpp - what the batched charge paths share (private to
// accounting/): store_charge.cpp (the scalar families' charges) and
// store_windows.cpp (the windowed families' charges) both read a batch's
// ledger rows and look its associations up by name in a few statements
// (sql::ListStmt), whatever the batch's size.
//
//   distinct_ids   a batch's job ids, sorted, each once: the ledger read's list
//   name_key       an association's name (user, account, partition) as one key
//   NameBatch      a batch's distinct association names, each looked up once
//   pack_tres      a journal row's TRES amounts as one text (schema 10), and
//   unpack_tres    back
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "sql.hpp"

namespace mfprio::acct::detail {

// Sorts ids and keeps each once.
inline void distinct_ids(std::vector<int64_t>& ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

// An association's name as one key: user \0 account \0 partition.
inline void name_key(std::string_view user, std::string_view account, std::string_view partition,
                     std::string* k) {
  k->assign(user);
  k->push_back('\0');
  k->append(account);
  k->push_back('\0');
  k->append(partition);
}

// A journal row's TRES amounts as one text (schema 10: charge_journal.tres):
// "id:amount" items separated by spaces, each amount the shortest text that
// reads back as the same double (std::to_chars).
inline void pack_tres(std::string* out, int64_t tres_id, double amount) {
  char buf[64];
  if (!out->empty()) out->push_back(' ');
  auto r = std::to_chars(buf, buf + sizeof buf, tres_id);
  *r.ptr++ = ':';
  r = std::to_chars(r.ptr, buf + sizeof buf, amount);
  out->append(buf, r.ptr);
}

// Calls each(tres id, amount) for every item of a pack_tres text; false (and
// nothing more called) at the first item that does not read whole.
template <class Each>
bool unpack_tres(std::string_view s, Each&& each) {
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p < end) {
    int64_t id = 0;
    double amount = 0;
    auto r = std::from_chars(p, end, id);
    if (r.ec != std::errc() || r.ptr == end || *r.ptr != ':') return false;
    r = std::from_chars(r.ptr + 1, end, amount);
    if (r.ec != std::errc() || (r.ptr != end && *r.ptr != ' ')) return false;
    each(id, amount);
    p = r.ptr == end ? end : r.ptr + 1;
  }
  return true;
}

// The association names of one batch, each looked up once (inside the
// caller's transaction).  add() every name, then resolve() once; the views
// add() keeps point into the caller's charges, which must outlive resolve().
// Kept across batches: no allocation per charge once warm.
class NameBatch {
 public:
  void clear() {
    idx_.clear();
    rows_.clear();
    assoc_.clear();
  }
  // The name's row (its index among the batch's distinct names).
  uint32_t add(std::string_view user, std::string_view account, std::string_view partition) {
    name_key(user, account, partition, &key_);
    const auto [it, fresh] = idx_.emplace(key_, static_cast<uint32_t>(rows_.size()));
    if (fresh) rows_.push_back({user, account, partition});
    return it->second;
  }
  // Every row's association id through `ls`, a statement over rows (row
  // number, user, account, partition) that yields (row number, id or NULL):
  // StoreImpl::ls_assoc_by_name_.
  void resolve(const sql::Conn& db, sql::ListStmt& ls) {
    assoc_.assign(rows_.size(), 0);  // 0: no such association (deleted while its job ran)
    ls.run(
        db, rows_.size(),
        [&](sql::Stmt& st, int p, size_t i) {
          st.bind(p, static_cast<int64_t>(i)).bind(p + 1, rows_[i][0]).bind(p + 2, rows_[i][1]).bind(p + 3, rows_[i][2]);
        },
        [&](sql::Stmt& st) {
          const int64_t k = st.i64(0);
          if (k >= 0 && static_cast<size_t>(k) < assoc_.size()) assoc_[static_cast<size_t>(k)] = st.i64(1);
        });
  }
  // After resolve(): the row's association, 0 when there is none.
  int64_t assoc(uint32_t row) const { return assoc_[row]; }

 private:
  std::string key_;
  std::unordered_map<std::string, uint32_t> idx_;
  std::vector<std::array<std::string_view, 3>> rows_;
  std::vector<int64_t> assoc_;
};

}  // namespace mfprio::acct::detail
