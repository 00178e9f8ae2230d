// share_block.cpp - see share_block.hpp.
#include "share_block.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace mfprio::edge {

namespace {

size_t align16(size_t n) { return (n + 15) & ~size_t{15}; }

// Asks the kernel for a big block's pages in one call (MADV_POPULATE_WRITE,
// Linux 5.14) instead of one page fault per 4 KiB as the rows are written,
// as 2 MiB pages where transparent huge pages are allowed (MADV_HUGEPAGE on
// the aligned middle: a 10^5-row table is 24 MB, 6,000 small pages, and
// their allocation was most of the kernel's time in an `sshare -a`
// process); nothing happens where a call is unknown or refused.
void prefault(char* p, size_t n) {
#ifdef __linux__
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE
  const uintptr_t page = 4096, lo = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1),
                  hi = (reinterpret_cast<uintptr_t>(p) + n) & ~(page - 1);
  if (n >= (size_t{1} << 20) && hi > lo) {
    const uintptr_t huge = uintptr_t{2} << 20, hlo = (lo + huge - 1) & ~(huge - 1), hhi = hi & ~(huge - 1);
    if (hhi > hlo) (void)madvise(reinterpret_cast<void*>(hlo), hhi - hlo, MADV_HUGEPAGE);
    (void)madvise(reinterpret_cast<void*>(lo), hi - lo, kPopulateWrite);
  }
#else
  (void)p, (void)n;
#endif
}

}  // namespace

ShareBlockWriter::~ShareBlockWriter() { std::free(block_); }

void ShareBlockWriter::begin(const std::vector<mfprio_share_column_t>& columns, size_t rows, size_t string_bytes) {
  if (block_) throw std::logic_error("share table: begin called twice");
  nc_ = columns.size();
  nr_ = rows;
  const size_t head = align16(sizeof(mfprio_share_table_t));
  const size_t colb = align16(nc_ * sizeof(mfprio_share_column_t));
  const size_t rowb = align16(nr_ * sizeof(mfprio_share_row_t));
  const size_t cellb = align16(nr_ * nc_ * sizeof(mfprio_share_cell_t));
  const size_t total = head + colb + rowb + cellb + string_bytes + 1;
  block_ = static_cast<char*>(std::calloc(1, total));
  if (!block_) throw std::bad_alloc();
  prefault(block_, total);
  table_ = reinterpret_cast<mfprio_share_table_t*>(block_);
  auto* col = reinterpret_cast<mfprio_share_column_t*>(block_ + head);
  rows_ = reinterpret_cast<mfprio_share_row_t*>(block_ + head + colb);
  cells_ = reinterpret_cast<mfprio_share_cell_t*>(block_ + head + colb + rowb);
  pool_ = block_ + head + colb + rowb + cellb;
  pool_end_ = block_ + total;
  empty_ = pool_++;  // the one "" (calloc'd)
  for (size_t i = 0; i < nc_; ++i) col[i] = columns[i];
  table_->struct_size = sizeof *table_;
  table_->column_count = static_cast<uint32_t>(nc_);
  table_->row_count = nr_;
  table_->columns = col;
  table_->rows = rows_;
}

const char* ShareBlockWriter::put(std::string_view s) {
  if (s.empty()) return empty_;
  if (static_cast<size_t>(pool_end_ - pool_) < s.size() + 1)
    throw std::logic_error("share table: the rows' strings pass the bytes the family counted");
  char* p = pool_;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  pool_ += s.size() + 1;
  return p;
}

void ShareBlockWriter::row(const ShareRowSpec& r) {
  if (!block_ || next_ >= nr_) throw std::logic_error("share table: a row past the rows announced");
  const size_t i = next_++;
  mfprio_share_row_t& row = rows_[i];
  row.parent = r.parent;
  row.depth = r.depth;
  row.is_user = r.is_user;
  // A user row whose account is its parent row's shares that copy.
  const char* pa = r.is_user && r.parent >= 0 && static_cast<size_t>(r.parent) < i
                       ? rows_[static_cast<size_t>(r.parent)].account
                       : nullptr;
  row.account = pa && std::string_view(pa) == r.account ? pa : put(r.account);
  const char* u = r.is_user ? put(r.user) : empty_;
  row.user = r.is_user ? u : nullptr;
  row.partition = r.partition.empty() ? nullptr : put(r.partition);
  mfprio_share_cell_t* rc = cells_ + i * nc_;
  for (size_t k = 0; k < nc_; ++k) {
    const ShareCell& c = r.cells[k];
    switch (c.kind) {
      case ShareCell::Number: rc[k].value = c.value, rc[k].text = nullptr; break;
      case ShareCell::Account: rc[k].text = row.account; break;
      case ShareCell::User: rc[k].text = u; break;
      case ShareCell::Text:
        if (c.text.empty()) {
          rc[k].text = empty_;
        } else {
          if (!(last_copy_ && std::string_view(last_copy_, last_size_) == c.text)) {
            last_copy_ = put(c.text);
            last_size_ = c.text.size();
          }
          rc[k].text = last_copy_;
        }
        break;
    }
  }
  row.cells = rc;
}

mfprio_share_table_t* ShareBlockWriter::release() {
  if (!block_ || next_ != nr_)
    throw std::logic_error("share table: " + std::to_string(next_) + " of " + std::to_string(nr_) + " rows given");
  block_ = nullptr;
  return table_;
}

mfprio_share_table_t* share_table_block(const ShareView& v) {
  const size_t nc = v.columns.size();
  size_t strings = 0;
  for (const ShareView::Row& r : v.rows) {
    strings += r.account.size() + r.user.size() + r.partition.size() + 3;
    for (const ShareView::Cell& c : r.cells)
      if (c.is_text) strings += c.text.size() + 1;
  }
  ShareBlockWriter w;
  w.begin(v.columns, v.rows.size(), strings);
  std::vector<ShareCell> cells(nc);
  for (const ShareView::Row& src : v.rows) {
    for (size_t k = 0; k < nc; ++k) {
      ShareCell& c = cells[k];
      if (k < src.cells.size() && src.cells[k].is_text) {
        c.kind = ShareCell::Text;
        c.text = src.cells[k].text;
      } else {
        c.kind = ShareCell::Number;
        c.value = k < src.cells.size() ? src.cells[k].value : 0.0;
      }
    }
    ShareRowSpec r;
    r.parent = src.parent;
    r.depth = src.depth;
    r.is_user = src.is_user;
    r.account = src.account;
    r.user = src.user;
    r.partition = src.partition;
    r.cells = cells.data();
    w.row(r);
  }
  return w.release();
}

}  // namespace mfprio::edge
