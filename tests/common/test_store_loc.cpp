// test_store_loc.cpp - common/store_loc.hpp and the store rules of conf.hpp
// for a PostgreSQL location: a URI is recognised by its scheme (any case),
// shown without its password, kept whole by store_location (never joined
// to the conf's directory); store_cluster is the last ClusterName, lower case.
#include <gtest/gtest.h>

#include "conf.hpp"
#include "store_loc.hpp"

namespace mfprio {
namespace {

TEST(StoreLoc, AUriIsKnownByItsSchemeAPathIsNot) {
  EXPECT_TRUE(is_server_store("postgresql:///acct?host=/run/postgresql"));
  EXPECT_TRUE(is_server_store("POSTGRES://db.example/acct"));
  EXPECT_FALSE(is_server_store("/var/spool/slurm/mfprio.db"));
  EXPECT_FALSE(is_server_store("postgresql.db"));
  EXPECT_FALSE(is_server_store("postgresql:/x"));
}

TEST(StoreLoc, TheShownUriHasNoPassword) {
  EXPECT_EQ("postgresql://alice@db:5433/acct?sslmode=verify-full",
            store_location_shown("postgresql://alice:s3cret@db:5433/acct?password=x&sslmode=verify-full"));
  EXPECT_EQ("postgres://db/acct", store_location_shown("postgres://db/acct?PassWord=x"));
  EXPECT_EQ("postgresql:///acct?host=/run/pg&user=slurm",
            store_location_shown("postgresql:///acct?host=/run/pg&password=p&user=slurm"));
  EXPECT_EQ("postgresql://u@h/d?passfile=/etc/slurm/pgpass",
            store_location_shown("postgresql://u@h/d?passfile=/etc/slurm/pgpass"));
  EXPECT_EQ("relative/acct.db", store_location_shown("relative/acct.db"));
}

TEST(StoreLoc, AUriInTheConfIsKeptWholeAndClusterNameIsTheCluster) {
  const Conf c = Conf::parse("ClusterName=Tux\nAccountingStorageLoc=postgresql://slurm@db/acct?sslmode=verify-full\n",
                             "/etc/slurm/slurm.conf");
  EXPECT_EQ("postgresql://slurm@db/acct?sslmode=verify-full", store_location(c.pairs(), nullptr));
  EXPECT_EQ("tux", store_cluster(c.pairs()));
  EXPECT_EQ("", store_cluster(Conf::parse("AccountingStorageLoc=x.db\n", "/etc/slurm/slurm.conf").pairs()));
  EXPECT_EQ("/etc/slurm/x.db", store_location(Conf::parse("AccountingStorageLoc=x.db\n", "/etc/slurm/slurm.conf").pairs(), nullptr));
}

}  // namespace
}  // namespace mfprio
