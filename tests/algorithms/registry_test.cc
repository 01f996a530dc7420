// SPDX-License-Identifier: Apache-2.0
// Registry: names, unknown names, ids, shared error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "chsim/algorithm.h"
#include "chsim/hasher.h"
#include "chsim/node.h"

namespace chsim {
namespace {

TEST(Registry, EveryListedAlgorithmBuildsAndLocates) {
  auto nodes = MakeNumberedNodes(10);
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    SCOPED_TRACE(std::string(info->name));
    auto a = MakeAlgorithm(info->name, nodes);
    EXPECT_EQ(a->name(), info->name);
    EXPECT_EQ(a->num_nodes(), 10u);
    std::vector<uint32_t> expect_ids(10);
    for (uint32_t i = 0; i < 10; ++i) expect_ids[i] = i;
    EXPECT_EQ(a->live_ids(), expect_ids);
    std::set<uint32_t> seen;
    for (uint64_t k = 0; k < 2000; ++k) {
      uint32_t id = a->Locate(HashXxh3(&k, sizeof k));
      ASSERT_LT(id, 10u);
      seen.insert(id);
    }
    EXPECT_EQ(seen.size(), 10u) << "2000 keys should reach all 10 nodes";
  }
}

TEST(Registry, UnknownNameListsValidOnes) {
  auto nodes = MakeNumberedNodes(3);
  try {
    MakeAlgorithm("nope", nodes);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ring"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("modulo"), std::string::npos) << e.what();
  }
}

TEST(Registry, UnknownHasherIsAnError) {
  auto nodes = MakeNumberedNodes(3);
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    for (const ParamSpec& param : info->params) {
      if (param.choices == nullptr) continue;
      const auto choices = param.choices();
      if (std::find(choices.begin(), choices.end(), "xxh3") == choices.end()) continue;
      Params p;
      p.Set(param.name, std::string("nope"));
      EXPECT_THROW(MakeAlgorithm(info->name, nodes, p), std::invalid_argument) << info->name;
    }
  }
}

TEST(Registry, EmptyAndDuplicateListsAreErrors) {
  auto nodes = MakeNumberedNodes(3);
  nodes[2].label = nodes[0].label;
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    EXPECT_THROW(MakeAlgorithm(info->name, std::span<const Node>()), std::invalid_argument)
        << info->name;
    EXPECT_THROW(MakeAlgorithm(info->name, nodes), std::invalid_argument) << info->name;
  }
}

TEST(Registry, IdsAreIssuedInOrderAndNeverReused) {
  auto nodes = MakeNumberedNodes(4);
  auto extra = MakeNumberedNodes(3, 100);
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    SCOPED_TRACE(std::string(info->name));
    auto a = MakeAlgorithm(info->name, nodes);
    EXPECT_EQ(a->Add(extra[0]), 4u);
    a->Remove(4);  // the last added: every algorithm can remove it
    EXPECT_EQ(a->Add(extra[1]), 5u);
    EXPECT_EQ(a->live_ids(), (std::vector<uint32_t>{0, 1, 2, 3, 5}));
    EXPECT_THROW(a->Remove(4), std::invalid_argument);      // dead
    EXPECT_THROW(a->Remove(77), std::invalid_argument);     // never issued
    EXPECT_THROW(a->Add(nodes[1]), std::invalid_argument);  // live label again
  }
}

TEST(Registry, RemovingTheOnlyNodeIsRefused) {
  auto nodes = MakeNumberedNodes(1);
  for (const AlgorithmSpec* info : AllAlgorithms()) {
    auto a = MakeAlgorithm(info->name, nodes);
    EXPECT_THROW(a->Remove(0), Unsupported) << info->name;
    EXPECT_EQ(a->num_nodes(), 1u);
  }
}

// The papers that prove minimal disruption are declared so (the conformance
// kit then holds each to it), and the schemes that move survivors' keys are not.
TEST(Registry, MinimalDisruptionClaimedByThePapersThatProveIt) {
  for (std::string_view name : {"ring", "jump", "rendezvous", "multi_probe", "anchor", "memento"}) {
    EXPECT_TRUE(GetAlgorithm(name).capabilities.minimal_disruption) << name;
  }
  for (std::string_view name : {"maglev", "modulo", "bounded_load", "ketama"}) {
    EXPECT_FALSE(GetAlgorithm(name).capabilities.minimal_disruption) << name;
  }
}

}  // namespace
}  // namespace chsim
