// SPDX-License-Identifier: Apache-2.0
// A CRUSH map built from chsim's failure domains (chsim/crush.h, BuildMap):
// the hierarchy Ceph's `ceph osd crush add-bucket` / `move` commands would
// make for those domains, with straw2 buckets and the rule of Ceph's default
// replicated pool (src/crush/CrushWrapper.cc add_simple_rule: take the root,
// chooseleaf firstn 0 over the failure-domain type, emit).
#include <algorithm>
#include <map>
#include <stdexcept>

#include "chsim/crush.h"

namespace chsim::crush {
namespace {

// Appends a straw2 bucket; returns its id.
int32_t AddBucket(Map& m, int32_t type, std::string name, std::vector<int32_t> items,
                  std::vector<uint32_t> weights) {
  const int32_t id = -static_cast<int32_t>(m.buckets.size()) - 1;
  m.buckets.push_back(Bucket{id, type, std::move(name), std::move(items), std::move(weights)});
  return id;
}

uint32_t Sum(const std::vector<uint32_t>& w) {
  uint64_t s = 0;
  for (uint32_t x : w) s += x;
  if (s > UINT32_MAX) throw std::invalid_argument("crush: bucket weights overflow 32 bits");
  return static_cast<uint32_t>(s);
}

}  // namespace

Map BuildMap(std::span<const int32_t> ids, std::span<const uint32_t> weights,
             std::span<const Level> levels, size_t failure_level, bool indep) {
  Map m;
  m.tunables = Tunables{};
  int32_t max_id = -1;
  for (int32_t id : ids) max_id = std::max(max_id, id);
  m.devices.resize(static_cast<size_t>(max_id + 1));
  for (int32_t id : ids) m.devices[static_cast<size_t>(id)] = "osd." + std::to_string(id);
  m.types.emplace_back(0, "osd");
  for (size_t l = 0; l < levels.size(); ++l) {
    m.types.emplace_back(static_cast<int32_t>(l + 1), std::string(levels[l].name));
  }
  const int32_t root_type = static_cast<int32_t>(levels.size() + 1);
  m.types.emplace_back(root_type, "root");
  m.buckets.push_back(Bucket{-1, root_type, "default", {}, {}});
  // The items of each level, by domain: devices first, then each level's
  // buckets into the next (the root takes the top level's).
  // Devices in ascending id in their buckets, so that ties go to the lowest.
  std::vector<size_t> order(ids.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
  std::vector<int32_t> items;
  std::vector<uint32_t> item_w, item_domain_source;  // a device of each item
  for (size_t i : order) {
    items.push_back(ids[i]);
    item_w.push_back(weights[i]);
    item_domain_source.push_back(static_cast<uint32_t>(ids[i]));
  }
  for (size_t l = 0; l < levels.size(); ++l) {
    std::map<uint32_t, std::pair<std::vector<int32_t>, std::vector<uint32_t>>> by_domain;
    std::map<uint32_t, uint32_t> device_of;
    for (size_t i = 0; i < items.size(); ++i) {
      const uint32_t d = levels[l].domain_of[item_domain_source[i]];
      by_domain[d].first.push_back(items[i]);
      by_domain[d].second.push_back(item_w[i]);
      device_of.emplace(d, item_domain_source[i]);
    }
    items.clear(), item_w.clear(), item_domain_source.clear();
    for (auto& [d, members] : by_domain) {
      const uint32_t w = Sum(members.second);
      items.push_back(AddBucket(m, static_cast<int32_t>(l + 1),
                                std::string(levels[l].name) + std::to_string(d),
                                std::move(members.first), std::move(members.second)));
      item_w.push_back(w);
      item_domain_source.push_back(device_of[d]);
    }
  }
  Sum(item_w);
  m.buckets[0].items = std::move(items);
  m.buckets[0].weights = std::move(item_w);
  Rule r;
  r.name = "chsim_rule";
  r.erasure = indep;
  r.max_size = 256;
  const bool leaf = !levels.empty();
  const StepOp op = leaf ? (indep ? StepOp::kChooseLeafIndep : StepOp::kChooseLeafFirstN)
                         : (indep ? StepOp::kChooseIndep : StepOp::kChooseFirstN);
  r.steps = {{StepOp::kTake, -1, 0},
             {op, 0, leaf ? static_cast<int32_t>(failure_level + 1) : 0},
             {StepOp::kEmit, 0, 0}};
  m.rules.push_back(std::move(r));
  return m;
}

}  // namespace chsim::crush
