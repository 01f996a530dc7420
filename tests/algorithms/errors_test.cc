// SPDX-License-Identifier: Apache-2.0
// Error paths: weights where unsupported, bad parameters, capacity limits.
// Never a silent wrong answer.
#include <gtest/gtest.h>

#include "chsim/algorithm.h"
#include "chsim/node.h"

namespace chsim {
namespace {

TEST(Errors, WeightsAreRefusedWhereUnsupported) {
  auto weighted = MakeNumberedNodes(4);
  weighted[2].weight = 3;
  Node heavy = MakeNumberedNodes(1, 50)[0];
  heavy.weight = 2;
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    SCOPED_TRACE(std::string(info->name));
    if (info->capabilities.weights) {
      auto a = MakeAlgorithm(info->name, weighted);
      EXPECT_EQ(a->num_nodes(), 4u);
      EXPECT_NO_THROW(a->Add(heavy));
    } else {
      try {
        MakeAlgorithm(info->name, weighted);
        ADD_FAILURE() << "weights accepted";
      } catch (const Unsupported& e) {
        EXPECT_NE(std::string(e.what()).find("weight"), std::string::npos) << e.what();
      }
      auto a = MakeAlgorithm(info->name, MakeNumberedNodes(4));
      EXPECT_THROW(a->Add(heavy), Unsupported);
      EXPECT_EQ(a->num_nodes(), 4u);
    }
  }
}

TEST(Errors, WeightCapabilitiesAreAsDocumented) {
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    const bool expected = info->name == "ring" || info->name == "ketama" ||
                          info->name == "rendezvous" || info->name == "maglev" ||
                          info->name == "straw2";
    EXPECT_EQ(info->capabilities.weights, expected) << info->name;
    EXPECT_EQ(MakeAlgorithm(info->name, MakeNumberedNodes(3))->capabilities().weights, expected);
  }
}

TEST(Errors, BadParameters) {
  auto nodes = MakeNumberedNodes(5);
  auto refused = [&](std::string_view algorithm, std::string_view param, ParamValue v) {
    Params p;
    p.Set(param, std::move(v));
    EXPECT_THROW(MakeAlgorithm(algorithm, nodes, p), std::invalid_argument) << algorithm;
  };
  refused("maglev", "table_size", uint64_t{65536});  // not prime
  refused("maglev", "table_size", uint64_t{3});      // prime but smaller than 5 nodes
  refused("multi_probe", "probes", uint64_t{0});
  refused("bounded_load", "balance_factor", 1.0);
  refused("bounded_load", "balance_factor", 0.5);
  refused("ring", "points_per_node", uint64_t{0});
  refused("bounded_load", "points_per_node", uint64_t{0});
  refused("anchor", "capacity", uint64_t{4});     // fewer than 5 nodes
  refused("jump", "hasher", std::string("md5"));  // not a parameter of jump
  Node zero = MakeNumberedNodes(1, 9)[0];
  zero.weight = 0;
  EXPECT_THROW(MakeAlgorithm("rendezvous", std::vector<Node>{zero}), std::invalid_argument);
}

TEST(Errors, AnchorCapacityIsAHardLimit) {
  Params p{{"capacity", uint64_t{6}}};
  auto a = MakeAlgorithm("anchor", MakeNumberedNodes(5), p);
  EXPECT_EQ(a->Add(MakeNumberedNodes(1, 5)[0]), 5u);
  EXPECT_THROW(a->Add(MakeNumberedNodes(1, 6)[0]), Unsupported);
  EXPECT_EQ(a->num_nodes(), 6u);
  a->Remove(2);  // frees a bucket
  EXPECT_EQ(a->Add(MakeNumberedNodes(1, 7)[0]), 6u);
  // Default capacity: twice the initial nodes.
  auto b = MakeAlgorithm("anchor", MakeNumberedNodes(3));
  for (uint32_t i = 0; i < 3; ++i) b->Add(MakeNumberedNodes(1, 10 + i)[0]);
  EXPECT_THROW(b->Add(MakeNumberedNodes(1, 20)[0]), Unsupported);
}

TEST(Errors, MementoGrowsWithoutLimitAndRestoresBuckets) {
  auto a = MakeAlgorithm("memento", MakeNumberedNodes(3));
  for (uint32_t i = 0; i < 100; ++i) a->Add(MakeNumberedNodes(1, 10 + i)[0]);
  EXPECT_EQ(a->num_nodes(), 103u);
  for (uint32_t id = 0; id < 103; id += 2) a->Remove(id);
  for (uint64_t k = 0; k < 10000; ++k) ASSERT_EQ(a->Locate(k) % 2, 1u) << "removed ids are even";
}

}  // namespace
}  // namespace chsim
