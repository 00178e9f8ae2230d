// share_block.hpp - the share table's one-allocation block (mfprio.h:
// mfprio_share_table_t, freed with share_table_free = std::free), written
// here once for every family: from the rows a family gives (Policy::
// share_block) or from its ShareView.
//
// Layout: the table, the columns, the rows, the cells (row i's at
// cells + i * columns), then every string the rows and cells point at.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "mfprio/mfprio.h"
#include "policy.hpp"

namespace mfprio::edge {

class ShareBlockWriter final : public ShareBlockSink {
 public:
  ShareBlockWriter() = default;
  ShareBlockWriter(const ShareBlockWriter&) = delete;
  ShareBlockWriter& operator=(const ShareBlockWriter&) = delete;
  ~ShareBlockWriter() override;
  void begin(const std::vector<mfprio_share_column_t>& columns, size_t rows, size_t string_bytes) override;
  void row(const ShareRowSpec& r) override;
  // The block, once every announced row was given (throws otherwise); the
  // caller owns it.
  mfprio_share_table_t* release();

 private:
  const char* put(std::string_view s);
  char* block_ = nullptr;
  mfprio_share_table_t* table_ = nullptr;
  mfprio_share_row_t* rows_ = nullptr;
  mfprio_share_cell_t* cells_ = nullptr;
  char* pool_ = nullptr;
  char* pool_end_ = nullptr;
  size_t nc_ = 0, nr_ = 0, next_ = 0;
  const char* empty_ = nullptr;
  const char* last_copy_ = nullptr;  // the last Text cell's copy (a text equal to it shares it)
  size_t last_size_ = 0;
};

// A family's ShareView through the same writer.
mfprio_share_table_t* share_table_block(const ShareView& v);

}  // namespace mfprio::edge
