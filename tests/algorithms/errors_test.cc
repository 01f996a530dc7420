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
  for (const AlgorithmInfo& info : AllAlgorithms()) {
    SCOPED_TRACE(std::string(info.name));
    if (info.capabilities.weights) {
      auto a = MakeAlgorithm(info.name, weighted);
      EXPECT_EQ(a->num_nodes(), 4u);
      EXPECT_NO_THROW(a->Add(heavy));
    } else {
      try {
        MakeAlgorithm(info.name, weighted);
        ADD_FAILURE() << "weights accepted";
      } catch (const Unsupported& e) {
        EXPECT_NE(std::string(e.what()).find("weight"), std::string::npos) << e.what();
      }
      auto a = MakeAlgorithm(info.name, MakeNumberedNodes(4));
      EXPECT_THROW(a->Add(heavy), Unsupported);
      EXPECT_EQ(a->num_nodes(), 4u);
    }
  }
}

TEST(Errors, WeightCapabilitiesAreAsDocumented) {
  for (const AlgorithmInfo& info : AllAlgorithms()) {
    const bool expected = info.name == "ring" || info.name == "rendezvous" || info.name == "maglev";
    EXPECT_EQ(info.capabilities.weights, expected) << info.name;
    EXPECT_EQ(MakeAlgorithm(info.name, MakeNumberedNodes(3))->capabilities().weights, expected);
  }
}

TEST(Errors, BadParameters) {
  auto nodes = MakeNumberedNodes(5);
  AlgorithmParams p;
  p.table_size = 65536;  // not prime
  EXPECT_THROW(MakeAlgorithm("maglev", nodes, p), std::invalid_argument);
  p.table_size = 3;  // prime but smaller than 5 nodes
  EXPECT_THROW(MakeAlgorithm("maglev", nodes, p), std::invalid_argument);
  p = {};
  p.probes = 0;
  EXPECT_THROW(MakeAlgorithm("multi_probe", nodes, p), std::invalid_argument);
  p = {};
  p.balance_factor = 1.0;
  EXPECT_THROW(MakeAlgorithm("bounded_load", nodes, p), std::invalid_argument);
  p.balance_factor = 0.5;
  EXPECT_THROW(MakeAlgorithm("bounded_load", nodes, p), std::invalid_argument);
  p = {};
  p.points_per_node = 0;
  EXPECT_THROW(MakeAlgorithm("ring", nodes, p), std::invalid_argument);
  EXPECT_THROW(MakeAlgorithm("bounded_load", nodes, p), std::invalid_argument);
  p = {};
  p.capacity = 4;  // fewer than 5 nodes
  EXPECT_THROW(MakeAlgorithm("anchor", nodes, p), std::invalid_argument);
  p = {};
  Node zero = MakeNumberedNodes(1, 9)[0];
  zero.weight = 0;
  EXPECT_THROW(MakeAlgorithm("rendezvous", std::vector<Node>{zero}), std::invalid_argument);
}

TEST(Errors, AnchorCapacityIsAHardLimit) {
  AlgorithmParams p;
  p.capacity = 6;
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
