// sqlite_floor.cpp - mfprio-bench-sqlite-floor STORE: SQLite's own read of
// every column of every table of a store, as a process: the floor the cold
// recompute as a process (`mfprio-host decay --now T`) is set against
// (bench/README.md, "cold start of a site-shaped tree").
//
// Opens the store read-only, lists its tables from sqlite_schema and steps
// `SELECT * FROM t` over each, fetching every column as its own type (text
// and blobs are fetched whole; their length and first byte go into a
// checksum, so the fetch is not optimised away).  Two tables are left out,
// which makes the floor lower (stricter): tree_cache, a copy of the
// accounts, users and associations rows read here, and assoc_tres_usage,
// the per-TRES usage (three rows per association in the bench's stores) that
// the cold recompute does not read.
// Prints the rows and the checksum; exit 1 with a message on any error.
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

int fail(sqlite3* db, const char* path, const std::string& what) {
  std::fprintf(stderr, "mfprio-bench-sqlite-floor: %s: %s: %s\n", path, what.c_str(),
               db ? sqlite3_errmsg(db) : "cannot open");
  sqlite3_close(db);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mfprio-bench-sqlite-floor STORE\n");
    return 2;
  }
  const char* path = argv[1];
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return fail(db, path, "open");
  std::vector<std::string> tables;
  {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                           "AND name NOT IN ('tree_cache', 'assoc_tres_usage') ORDER BY name",
                           -1, &st, nullptr) != SQLITE_OK)
      return fail(db, path, "list tables");
    while (sqlite3_step(st) == SQLITE_ROW)
      tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
  }
  uint64_t rows = 0, sum = 0;
  for (const std::string& t : tables) {
    std::string q = "SELECT * FROM \"" + t + "\"";  // names from the schema, no quotes in them
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr) != SQLITE_OK) return fail(db, path, "read " + t);
    const int cols = sqlite3_column_count(st);
    int rc = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      ++rows;
      for (int c = 0; c < cols; ++c) {
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_INTEGER: sum += uint64_t(sqlite3_column_int64(st, c)); break;
          case SQLITE_FLOAT: sum += uint64_t(int64_t(sqlite3_column_double(st, c))); break;
          case SQLITE_TEXT:
          case SQLITE_BLOB: {
            const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, c));
            const int n = sqlite3_column_bytes(st, c);
            sum += uint64_t(n) + (n > 0 ? p[0] : 0);
            break;
          }
          default: break;
        }
      }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return fail(db, path, "read " + t);
  }
  sqlite3_close(db);
  std::printf("%llu rows, checksum %llu\n", static_cast<unsigned long long>(rows), static_cast<unsigned long long>(sum));
  return 0;
}
