#include "models/workload/workload_file.hpp"

#include <boost/range/iterator_range.hpp>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/workload/workload_catalog.hpp"
#include "sim/config/workload_file_loader.hpp"
#include "tests/input_error.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::error_of;
using models::Layer;
using models::LayerGraph;

namespace {

// The names of the layers `v` reads, in edge order.
std::vector<std::string> input_names(const LayerGraph& g, models::LayerId v) {
  std::vector<std::string> out;
  for (auto e : boost::make_iterator_range(boost::in_edges(v, g.graph())))
    out.push_back(g.layer(boost::source(e, g.graph())).name);
  return out;
}

// Every field of every layer, and the edges, equal.
void check_same_graph(const LayerGraph& a, const LayerGraph& b) {
  REQUIRE(a.size() == b.size());
  for (models::LayerId v = 0; v < a.size(); ++v) {
    const Layer& x = a.layer(v);
    const Layer& y = b.layer(v);
    INFO("layer " << v << " " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.kind == y.kind);
    CHECK(x.out == y.out);
    CHECK(x.params == y.params);
    CHECK(x.param_tensors == y.param_tensors);
    CHECK(x.macs == y.macs);
    CHECK(x.elementwise_ops == y.elementwise_ops);
    CHECK(x.kernels == y.kernels);
    CHECK(x.grouped == y.grouped);
    CHECK(x.weight_read_bytes == y.weight_read_bytes);
    CHECK(x.reread_bytes == y.reread_bytes);
    CHECK(x.reread_footprint_bytes == y.reread_footprint_bytes);
    CHECK(x.gathered_bytes == y.gathered_bytes);
    CHECK(x.geometry.kernel == y.geometry.kernel);
    CHECK(x.geometry.stride == y.geometry.stride);
    CHECK(x.geometry.padding == y.geometry.padding);
    CHECK(x.geometry.groups == y.geometry.groups);
    CHECK(x.geometry.bias == y.geometry.bias);
    CHECK(x.geometry.max_pool == y.geometry.max_pool);
    CHECK(x.geometry.attention_scaling == y.geometry.attention_scaling);
    CHECK(x.geometry.axis == y.geometry.axis);
    CHECK(x.geometry.activation == y.geometry.activation);
    CHECK(input_names(a, v) == input_names(b, v));
  }
}

}  // namespace

TEST_CASE("Writing any catalog workload and reading it back gives the same graph, layer for layer",
          "[workload_file]") {
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  for (const std::string& name : catalog.names()) {
    INFO(name);
    const models::GraphWorkload& built = *catalog.get(name).graph();
    const std::string text = models::write_workload_file(built);
    const WorkloadFile read = parse_workload_file(text, name + ".yaml");
    CHECK(read.workload.name() == built.name());
    CHECK(read.workload.task() == built.task());
    CHECK(read.workload.input_bytes_per_sample() == built.input_bytes_per_sample());
    CHECK(read.workload.note() == built.note());
    check_same_graph(built.layers(), read.workload.layers());
    // And writing what was read gives the same text.
    CHECK(models::write_workload_file(read.workload) == text);
  }
}
