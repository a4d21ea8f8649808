// The console's own metrics (docs/metrics.md): its queue depths, counted in the database before a
// scrape within a deadline, so a scrape answers even while the database does not.
#include "ops_console/tests/console_fixture.hpp"

namespace ops_console::testing {
namespace {

struct ConsoleMetricsTest : ConsoleTest {
  std::string scrape() {
    const auto res = core::testing::http(svc->service().metrics_port(), "GET", "/metrics");
    EXPECT_EQ(res.status, 200u);
    return res.body;
  }
  static bool holds(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos;
  }
};

TEST_F(ConsoleMetricsTest, QueueDepthsAreCountedAtScrapeTimeAndLeftOutWhenTheDatabaseIsLate) {
  start();
  sql("INSERT INTO analysis_jobs (ticket_id) VALUES (1), (2)");
  sql("INSERT INTO rmm_executions (device, script, agent_id, script_id) VALUES ('pc', 'x', 'agent', 1)");
  auto text = scrape();
  EXPECT_TRUE(holds(text, "ops_console_queue_depth{queue=\"analyzer\"} 2")) << text;
  EXPECT_TRUE(holds(text, "ops_console_queue_depth{queue=\"agent_delivery\"} 0")) << text;
  EXPECT_TRUE(holds(text, "ops_console_queue_depth{queue=\"rmm_execution\"} 1")) << text;
  EXPECT_TRUE(holds(text, "ops_console_queue_depth{queue=\"webhook_intake\"} 0")) << text;
  EXPECT_TRUE(holds(text, "ops_console_metrics_refresh_errors_total 0")) << text;

  // A lock holds the count up: the scrape answers after its deadline without the counted depths.
  core::testing::Session blocker(database.url());
  blocker.sql("BEGIN; LOCK TABLE analysis_jobs IN ACCESS EXCLUSIVE MODE");
  text = scrape();
  EXPECT_EQ(text.find("queue=\"analyzer\""), std::string::npos) << text;
  EXPECT_EQ(text.find("queue=\"rmm_execution\""), std::string::npos) << text;
  EXPECT_TRUE(holds(text, "ops_console_queue_depth{queue=\"webhook_intake\"} 0")) << text;
  EXPECT_TRUE(holds(text, "ops_console_metrics_refresh_errors_total 1")) << text;

  blocker.sql("COMMIT");
  EXPECT_TRUE(
      core::testing::eventually([&] { return holds(scrape(), "ops_console_queue_depth{queue=\"analyzer\"} 2"); }));
}

}  // namespace
}  // namespace ops_console::testing
