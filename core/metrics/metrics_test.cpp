#include "core/metrics/metrics.hpp"

#include "core/metrics/process.hpp"
#include "core/metrics/requests.hpp"

#include <gtest/gtest.h>

namespace core::metrics {
namespace {

TEST(MetricsTest, ExposesASmallRegistryExactly) {
  Registry r;
  auto& runs = r.counter("job_runs_total", "Runs of a job", {"job", "outcome"});
  runs.with({"psa sync", "ok"}).inc();
  runs.with({"psa sync", "ok"}).inc(2);
  runs.with({"backup", "error"}).inc();
  r.gauge("queue_depth", "Items waiting").get().set(7);
  auto& latency = r.histogram("call_seconds", "Call time", {"integration"}, {0.5, 1});
  latency.with({"psa"}).observe(0.25);
  latency.with({"psa"}).observe(0.5);  // a bound is "less than or equal"
  latency.with({"psa"}).observe(3);
  r.callback("pool_open", "Open connections", Type::gauge, [](Samples& out) { out.add({}, 2); });

  EXPECT_EQ(r.expose(),
            "# HELP job_runs_total Runs of a job\n"
            "# TYPE job_runs_total counter\n"
            "job_runs_total{job=\"backup\",outcome=\"error\"} 1\n"
            "job_runs_total{job=\"psa sync\",outcome=\"ok\"} 3\n"
            "# HELP queue_depth Items waiting\n"
            "# TYPE queue_depth gauge\n"
            "queue_depth 7\n"
            "# HELP call_seconds Call time\n"
            "# TYPE call_seconds histogram\n"
            "call_seconds_bucket{integration=\"psa\",le=\"0.5\"} 2\n"
            "call_seconds_bucket{integration=\"psa\",le=\"1\"} 2\n"
            "call_seconds_bucket{integration=\"psa\",le=\"+Inf\"} 3\n"
            "call_seconds_sum{integration=\"psa\"} 3.75\n"
            "call_seconds_count{integration=\"psa\"} 3\n"
            "# HELP pool_open Open connections\n"
            "# TYPE pool_open gauge\n"
            "pool_open 2\n");
}

TEST(MetricsTest, EscapesHelpAndLabelValues) {
  EXPECT_EQ(escape_help("a\\b\nc \"q\""), "a\\\\b\\nc \"q\"");
  EXPECT_EQ(escape_label_value("a\\b\nc \"q\""), "a\\\\b\\nc \\\"q\\\"");
  Registry r;
  r.counter("x_total", "line one\nline two", {"v"}).with({"say \"hi\"\\"}).inc();
  EXPECT_EQ(r.expose(),
            "# HELP x_total line one\\nline two\n# TYPE x_total counter\nx_total{v=\"say \\\"hi\\\"\\\\\"} 1\n");
}

TEST(MetricsTest, FormatsValues) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(0.25), "0.25");
  EXPECT_EQ(format_value(1e-3), "0.001");
  EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
  EXPECT_EQ(format_value(-1.0 / 0.0), "-Inf");
  EXPECT_EQ(format_value(0.0 / 0.0), "NaN");
}

TEST(MetricsTest, RefusesBadNamesUnorderedBucketsAndUnboundedLabels) {
  Registry r;
  EXPECT_THROW(r.counter("bad-name", "x"), std::invalid_argument);
  EXPECT_THROW(r.counter("ok_total", "x", {"le"}), std::invalid_argument);
  EXPECT_THROW(r.histogram("h", "x", {}, {1, 0.5}), std::invalid_argument);
  auto& capped = r.counter("capped_total", "x", {"id"}, 2);
  capped.with({"1"});
  capped.with({"2"});
  capped.with({"1"});  // known: no new set
  EXPECT_THROW(capped.with({"3"}), std::length_error);
  EXPECT_THROW(capped.with({}), std::invalid_argument);
  // The same name again is the same family; another type is an error.
  EXPECT_EQ(&r.counter("capped_total", "x", {"id"}, 2), &capped);
  EXPECT_THROW(r.gauge("capped_total", "x", {"id"}), std::invalid_argument);
}

TEST(MetricsTest, HistogramCountsAreCumulative) {
  Histogram h({1, 2, 4});
  for (double v : {0.5, 1.5, 1.5, 3.0, 9.0}) h.observe(v);
  const auto s = h.snapshot();
  EXPECT_EQ(s.cumulative, (std::vector<std::uint64_t>{1, 3, 4, 5}));
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.sum, 15.5);
}

TEST(MetricsTest, RequestsAreLabelledByRouteTemplateAndStatusClass) {
  RequestMetrics requests({"/api/v1/log/{entry_id:uuid}", "/healthz"});
  Registry r;
  requests.register_in(r);
  using boost::beast::http::verb;
  requests.observe(0, verb::get, 200, 0.002);
  requests.observe(0, verb::get, 404, 0.003);
  requests.observe(1, verb::head, 200, 0.0001);
  requests.observe(RequestMetrics::kUnmatched, verb::get, 404, 0.0001);
  requests.observe(RequestMetrics::kUnmatched, verb::unknown, 400, 0.0001);
  const auto text = r.expose();
  EXPECT_NE(text.find("http_requests_total{method=\"GET\",route=\"/api/v1/log/{entry_id:uuid}\",status=\"2xx\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("http_requests_total{method=\"GET\",route=\"/api/v1/log/{entry_id:uuid}\",status=\"4xx\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("http_requests_total{method=\"HEAD\",route=\"/healthz\",status=\"2xx\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("http_requests_total{method=\"GET\",route=\"unmatched\",status=\"4xx\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("http_requests_total{method=\"other\",route=\"unmatched\",status=\"4xx\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("http_request_duration_seconds_count{method=\"GET\",route=\"/api/v1/log/{entry_id:uuid}\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("http_request_duration_seconds_bucket{method=\"GET\",route=\"/api/v1/log/{entry_id:uuid}\","
                      "le=\"0.0025\"} 1\n"),
            std::string::npos);
  // Pairs never requested have no series.
  EXPECT_EQ(text.find("method=\"POST\""), std::string::npos);
}

TEST(MetricsTest, ProcessFiguresAndBuildInfo) {
  Registry r;
  register_process_metrics(r);
  register_build_info(r, "mail-triage");
  const auto text = r.expose();
  for (const char* name : {"process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
                           "process_max_fds ", "process_start_time_seconds ", "mail_triage_build_info{version=\""})
    EXPECT_NE(text.find(std::string("\n") + name), std::string::npos) << name << " in\n" << text;
  EXPECT_EQ(text.find("process_resident_memory_bytes 0\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace core::metrics
