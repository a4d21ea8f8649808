#include "core/db/migrate.hpp"

#include "core/testing/testing.hpp"
#include "core/util/digest.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace core;
using core::testing::sql;

namespace {

const db::Migration kFirst{"0001_people.sql", "CREATE TABLE people (id int PRIMARY KEY, name text NOT NULL);"};
const db::Migration kSecond{"0002_pets.sql",
                            "CREATE TABLE pets (id int PRIMARY KEY, owner int REFERENCES people);\n"
                            "INSERT INTO people VALUES (1, 'ada');"};

}  // namespace

TEST(Migrations, AppliesPendingInOrderAndRecordsChecksums) {
  core::testing::TestDatabase database;
  const db::Migration both[] = {kFirst, kSecond};
  EXPECT_EQ(db::apply_migrations(database.url(), both, "t"),
            (std::vector<std::string>{"0001_people.sql", "0002_pets.sql"}));
  EXPECT_EQ(sql(database.url(), "SELECT name FROM people"), "ada");
  EXPECT_EQ(sql(database.url(), "SELECT checksum FROM schema_migrations WHERE name = '0002_pets.sql'"),
            core::sha256_hex(kSecond.sql));
  EXPECT_TRUE(db::apply_migrations(database.url(), both, "t").empty());
}

TEST(Migrations, AppliesOnlyWhatIsNew) {
  core::testing::TestDatabase database;
  const db::Migration first[] = {kFirst};
  const db::Migration both[] = {kFirst, kSecond};
  db::apply_migrations(database.url(), first, "t");
  EXPECT_EQ(db::apply_migrations(database.url(), both, "t"), (std::vector<std::string>{"0002_pets.sql"}));
}

TEST(Migrations, EditedMigrationIsRefused) {
  core::testing::TestDatabase database;
  const db::Migration original[] = {kFirst};
  db::apply_migrations(database.url(), original, "t");
  const db::Migration edited[] = {{kFirst.name, "CREATE TABLE people (id bigint PRIMARY KEY);"}, kSecond};
  try {
    db::apply_migrations(database.url(), edited, "t");
    FAIL() << "an edited migration was accepted";
  } catch (const db::MigrationError& e) {
    EXPECT_NE(std::string(e.what()).find("0001_people.sql was edited"), std::string::npos) << e.what();
  }
  // Nothing after the edited one ran.
  EXPECT_EQ(sql(database.url(), "SELECT count(*) FROM pg_tables WHERE tablename = 'pets'"), "0");
}

TEST(Migrations, FailingMigrationChangesNothingAndNamesTheFile) {
  core::testing::TestDatabase database;
  const db::Migration bad[] = {kFirst,
                               {"0002_broken.sql", "CREATE TABLE half (id int); SELECT no_such_column FROM half;"}};
  try {
    db::apply_migrations(database.url(), bad, "t");
    FAIL();
  } catch (const db::MigrationError& e) {
    EXPECT_NE(std::string(e.what()).find("0002_broken.sql failed"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sql(database.url(), "SELECT count(*) FROM pg_tables WHERE tablename = 'half'"), "0");
  EXPECT_EQ(sql(database.url(), "SELECT string_agg(name, ',') FROM schema_migrations"), "0001_people.sql");
}

TEST(Migrations, ConcurrentMigratorsApplyEachFileOnce) {
  core::testing::TestDatabase database;
  // Not idempotent on purpose: running it twice would fail on the duplicate table.
  const db::Migration set[] = {kFirst, kSecond, {"0003_slow.sql", "SELECT pg_sleep(0.2); CREATE TABLE toys (id int);"}};
  std::atomic<int> applied_total{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> migrators;
  for (int i = 0; i < 4; ++i) {
    migrators.emplace_back([&] {
      try {
        applied_total += static_cast<int>(db::apply_migrations(database.url(), set, "t").size());
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& t : migrators) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(applied_total, 3);
  EXPECT_EQ(sql(database.url(), "SELECT count(*) FROM schema_migrations"), "3");
  EXPECT_EQ(sql(database.url(), "SELECT count(*) FROM people"), "1");
}

TEST(Migrations, CurrentOnlyWhenAllAppliedUnchanged) {
  core::testing::TestDatabase database;
  core::testing::IoThreads io;
  db::Pool pool(io.executor(), {.conninfo = database.url(), .max_size = 2});
  const db::Migration first[] = {kFirst};
  const db::Migration both[] = {kFirst, kSecond};
  EXPECT_FALSE(io.run(db::migrations_current(pool, first)));  // no table yet
  db::apply_migrations(database.url(), first, "t");
  EXPECT_TRUE(io.run(db::migrations_current(pool, first)));
  EXPECT_FALSE(io.run(db::migrations_current(pool, both)));
  sql(database.url(), "UPDATE schema_migrations SET checksum = 'x'");
  EXPECT_FALSE(io.run(db::migrations_current(pool, first)));
}
