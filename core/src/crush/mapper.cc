// SPDX-License-Identifier: Apache-2.0
// CRUSH's rule engine (chsim/crush.h): Weil et al., SC 2006, section 3.2
// (Algorithm 1; 3.2.1 collisions, failure and overload; 3.2.2 replica ranks),
// with the modifications Ceph 16.2 made, as its src/crush/mapper.c behaves
// (crush_do_rule, crush_choose_firstn, crush_choose_indep, is_out):
//  - tries: choose_total_tries counts retries, so a descent is tried
//    choose_total_tries + 1 times; a rule's set_choose_tries replaces that;
//  - chooseleaf: the leaf under each chosen item is found by a nested choice
//    of one device, tried once when chooseleaf_descend_once (else as often
//    as the outer choice), with r >> (vary_r - 1) as its base rank when
//    chooseleaf_vary_r, and its rank counted from 0 (not from the outer
//    position) when chooseleaf_stable;
//  - firstn: rank r = position + f (f: failures so far for this position);
//    a collision with an earlier item, a failed leaf or a device out by its
//    reweight counts a failure and restarts the descent from the rule's
//    bucket (or, within choose_local_tries, retries the bucket it collided
//    in); after the last try the position is skipped and the result is
//    shorter;
//  - indep: rank r = position + n f, all positions retried in rounds, a
//    position that never fills left as kItemNone, so later positions keep
//    their places.
#include <algorithm>

#include "chsim/crush.h"

namespace chsim::crush {
namespace {

constexpr int32_t kItemUndef = 0x7ffffffe;  // an indep position not yet filled

struct Input {
  const Map& map;
  uint32_t x;
  std::span<const uint32_t> reweights;
};

// The parameters of one choose step, as crush_do_rule hands them down.
struct Choice {
  uint32_t tries;
  uint32_t recurse_tries;
  uint32_t local_retries;
  bool recurse_to_leaf;
  uint32_t vary_r;
  bool stable;
};

int32_t ChooseIn(const Input& in, const Bucket& b, int32_t r) noexcept {
  return Straw2Choose(b.items, b.weights, in.x, static_cast<uint32_t>(r), *in.map.ln);
}

// Whether a device is out for this input: past the reweights, reweight 0, or
// below 0x10000 and its hash at or above the reweight.
bool IsOut(const Input& in, int32_t device) noexcept {
  if (static_cast<size_t>(device) >= in.reweights.size()) return true;
  const uint32_t w = in.reweights[static_cast<size_t>(device)];
  if (w >= kWeightOne) return false;
  if (w == 0) return true;
  return (Hash32_2(in.x, static_cast<uint32_t>(device)) & 0xffff) >= w;
}

// The type of an item, or -1 for an id that names nothing.
int32_t TypeOf(const Map& map, int32_t item) noexcept {
  if (item >= 0) return 0;
  const Bucket* b = map.FindBucket(item);
  return b ? b->type : -1;
}

// What one descent for one firstn position found.
enum class Outcome { kFound, kRetry, kSkip };

int ChooseFirstN(const Input& in, const Bucket& root, int numrep, int32_t type, int32_t* out,
                 int outpos, int count, const Choice& c, int32_t* out2, int parent_r) noexcept;

// One firstn position: descends from `root` until an item of `type` that
// neither collides nor is rejected, retrying as the tunables say.
Outcome DescendFirstN(const Input& in, const Bucket& root, int rep, int32_t type, int32_t* out,
                      int outpos, int count, const Choice& c, int32_t* out2, int parent_r,
                      int32_t* item) noexcept {
  uint32_t ftotal = 0;
  for (;;) {  // a descent from root
    const Bucket* b = &root;
    uint32_t flocal = 0;
    for (;;) {  // a choice in b
      const int32_t r = rep + parent_r + static_cast<int32_t>(ftotal);
      bool collide = false, reject = false;
      if (b->items.empty()) {
        reject = true;
      } else {
        *item = ChooseIn(in, *b, r);
        if (*item >= in.map.max_devices()) return Outcome::kSkip;
        const int32_t item_type = TypeOf(in.map, *item);
        if (item_type != type) {
          if (*item >= 0 || item_type < 0) return Outcome::kSkip;
          b = in.map.FindBucket(*item);
          continue;
        }
        collide = std::find(out, out + outpos, *item) != out + outpos;
        if (!collide && c.recurse_to_leaf) {
          if (*item < 0) {
            const int sub_r = c.vary_r ? r >> (c.vary_r - 1) : 0;
            const Choice leaf{c.recurse_tries, 0, c.local_retries, false, c.vary_r, c.stable};
            reject = ChooseFirstN(in, *in.map.FindBucket(*item), c.stable ? 1 : outpos + 1, 0, out2,
                                  outpos, count, leaf, nullptr, sub_r) <= outpos;
          } else {
            out2[outpos] = *item;
          }
        }
        if (!reject && item_type == 0) reject = IsOut(in, *item);
      }
      if (!reject && !collide) return Outcome::kFound;
      ++ftotal, ++flocal;
      if (collide && flocal <= c.local_retries) continue;
      if (ftotal < c.tries) break;  // descend again from root
      return Outcome::kSkip;
    }
  }
}

int ChooseFirstN(const Input& in, const Bucket& root, int numrep, int32_t type, int32_t* out,
                 int outpos, int count, const Choice& c, int32_t* out2, int parent_r) noexcept {
  for (int rep = c.stable ? 0 : outpos; rep < numrep && count > 0; ++rep) {
    int32_t item = 0;
    if (DescendFirstN(in, root, rep, type, out, outpos, count, c, out2, parent_r, &item) !=
        Outcome::kFound) {
      continue;
    }
    out[outpos++] = item;
    --count;
  }
  return outpos;
}

void ChooseIndep(const Input& in, const Bucket& root, int left, int numrep, int32_t type,
                 int32_t* out, int outpos, uint32_t tries, uint32_t recurse_tries,
                 bool recurse_to_leaf, int32_t* out2, int parent_r) noexcept;

// One indep position in round ftotal: fills out[rep] (and out2[rep]), marks
// it kItemNone when the map cannot fill it, or leaves it undefined for the
// next round. Returns whether it is settled.
bool PlaceIndep(const Input& in, const Bucket& root, int rep, int numrep, int32_t type,
                int32_t* out, int outpos, int endpos, uint32_t ftotal, uint32_t recurse_tries,
                bool recurse_to_leaf, int32_t* out2, int parent_r) noexcept {
  const Bucket* b = &root;
  const auto none = [&] {
    out[rep] = kItemNone;
    if (out2) out2[rep] = kItemNone;
    return true;
  };
  for (;;) {
    const int32_t r = rep + parent_r + numrep * static_cast<int32_t>(ftotal);
    if (b->items.empty()) return false;
    const int32_t item = ChooseIn(in, *b, r);
    if (item >= in.map.max_devices()) return none();
    const int32_t item_type = TypeOf(in.map, item);
    if (item_type != type) {
      if (item >= 0 || item_type < 0) return none();
      b = in.map.FindBucket(item);
      continue;
    }
    if (std::find(out + outpos, out + endpos, item) != out + endpos) return false;
    if (recurse_to_leaf) {
      if (item < 0) {
        ChooseIndep(in, *in.map.FindBucket(item), 1, numrep, 0, out2, rep, recurse_tries, 0, false,
                    nullptr, r);
        if (out2[rep] == kItemNone) return false;
      } else {
        out2[rep] = item;
      }
    }
    if (item_type == 0 && IsOut(in, item)) return false;
    out[rep] = item;
    return true;
  }
}

void ChooseIndep(const Input& in, const Bucket& root, int left, int numrep, int32_t type,
                 int32_t* out, int outpos, uint32_t tries, uint32_t recurse_tries,
                 bool recurse_to_leaf, int32_t* out2, int parent_r) noexcept {
  const int endpos = outpos + left;
  for (int rep = outpos; rep < endpos; ++rep) {
    out[rep] = kItemUndef;
    if (out2) out2[rep] = kItemUndef;
  }
  for (uint32_t ftotal = 0; left > 0 && ftotal < tries; ++ftotal) {
    for (int rep = outpos; rep < endpos; ++rep) {
      if (out[rep] != kItemUndef) continue;
      if (PlaceIndep(in, root, rep, numrep, type, out, outpos, endpos, ftotal, recurse_tries,
                     recurse_to_leaf, out2, parent_r)) {
        --left;
      }
    }
  }
  for (int rep = outpos; rep < endpos; ++rep) {
    if (out[rep] == kItemUndef) out[rep] = kItemNone;
    if (out2 && out2[rep] == kItemUndef) out2[rep] = kItemNone;
  }
}

// The state of crush_do_rule between steps: the working vector w and the
// tunables the rule's set_* steps changed.
struct RuleState {
  uint32_t choose_tries;
  uint32_t choose_leaf_tries = 0;
  uint32_t local_retries;
  uint32_t vary_r;
  bool stable;
};

// A choose / chooseleaf step over the working items w[0..wsize) into o
// (leaves through c); returns the new working size.
int RunChoose(const Input& in, const Step& s, const RuleState& st, int result_max, const int32_t* w,
              int wsize, int32_t* o, int32_t* c) noexcept {
  const bool firstn = s.op == StepOp::kChooseFirstN || s.op == StepOp::kChooseLeafFirstN;
  const bool leaf = s.op == StepOp::kChooseLeafFirstN || s.op == StepOp::kChooseLeafIndep;
  int osize = 0;
  for (int i = 0; i < wsize; ++i) {
    int numrep = s.arg1;
    if (numrep <= 0) numrep += result_max;
    if (numrep <= 0) continue;
    const Bucket* b = w[i] < 0 ? in.map.FindBucket(w[i]) : nullptr;
    if (b == nullptr) continue;
    if (firstn) {
      const uint32_t recurse_tries = st.choose_leaf_tries ? st.choose_leaf_tries
                                     : in.map.tunables.chooseleaf_descend_once ? 1
                                                                               : st.choose_tries;
      const Choice choice{st.choose_tries, recurse_tries, st.local_retries, leaf,
                          st.vary_r,       st.stable};
      osize += ChooseFirstN(in, *b, numrep, s.arg2, o + osize, 0, result_max - osize, choice,
                            c + osize, 0);
    } else {
      const int out_size = std::min(numrep, result_max - osize);
      ChooseIndep(in, *b, out_size, numrep, s.arg2, o + osize, 0, st.choose_tries,
                  st.choose_leaf_tries ? st.choose_leaf_tries : 1, leaf, c + osize, 0);
      osize += out_size;
    }
  }
  if (leaf) std::copy(c, c + osize, o);
  return osize;
}

// Applies a set_* step; false for any other step.
bool ApplySetting(const Step& s, RuleState& st) noexcept {
  const int32_t v = s.arg1;
  switch (s.op) {
    case StepOp::kSetChooseTries:
      if (v > 0) st.choose_tries = static_cast<uint32_t>(v);
      return true;
    case StepOp::kSetChooseLeafTries:
      if (v > 0) st.choose_leaf_tries = static_cast<uint32_t>(v);
      return true;
    case StepOp::kSetChooseLocalTries:
      if (v >= 0) st.local_retries = static_cast<uint32_t>(v);
      return true;
    case StepOp::kSetChooseLocalFallbackTries:
      return true;  // the reader admits only 0, the tunable's value
    case StepOp::kSetChooseLeafVaryR:
      if (v >= 0) st.vary_r = static_cast<uint32_t>(v);
      return true;
    case StepOp::kSetChooseLeafStable:
      if (v >= 0) st.stable = v != 0;
      return true;
    default:
      return false;
  }
}

}  // namespace

uint32_t DoRule(const Map& map, const Rule& rule, uint32_t x, std::span<int32_t> result,
                std::span<const uint32_t> reweights) noexcept {
  const int result_max = static_cast<int>(result.size());
  int32_t scratch[3 * kMaxResult];
  int32_t *w = scratch, *o = scratch + kMaxResult, *c = scratch + 2 * kMaxResult;
  const Input in{map, x, reweights};
  RuleState st{map.tunables.choose_total_tries + 1, 0, map.tunables.choose_local_tries,
               map.tunables.chooseleaf_vary_r, map.tunables.chooseleaf_stable != 0};
  int wsize = 0;
  uint32_t len = 0;
  for (const Step& s : rule.steps) {
    if (ApplySetting(s, st)) continue;
    switch (s.op) {
      case StepOp::kTake:
        if ((s.arg1 >= 0 && s.arg1 < map.max_devices()) || map.FindBucket(s.arg1)) {
          w[0] = s.arg1, wsize = 1;
        }
        break;
      case StepOp::kEmit:
        for (int i = 0; i < wsize && len < result.size(); ++i) result[len++] = w[i];
        wsize = 0;
        break;
      default:  // a choose step
        if (wsize == 0) break;
        wsize = RunChoose(in, s, st, result_max, w, wsize, o, c);
        std::swap(o, w);
        break;
    }
  }
  return len;
}

const Bucket* Map::FindBucket(int32_t id) const noexcept {
  if (id >= 0) return nullptr;
  const size_t slot = static_cast<size_t>(-1 - static_cast<int64_t>(id));
  return slot < buckets.size() && buckets[slot].id == id ? &buckets[slot] : nullptr;
}

const Rule* Map::FindRule(int32_t id) const noexcept {
  for (const Rule& r : rules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

int32_t Map::TypeId(std::string_view name) const noexcept {
  for (const auto& [id, n] : types) {
    if (n == name) return id;
  }
  return -1;
}

bool Map::ItemId(std::string_view name, int32_t* id) const noexcept {
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!devices[d].empty() && devices[d] == name) return *id = static_cast<int32_t>(d), true;
  }
  for (const Bucket& b : buckets) {
    if (b.id != 0 && b.name == name) return *id = b.id, true;
  }
  return false;
}

std::vector<bool> Map::DevicesInBuckets() const {
  std::vector<bool> in(devices.size(), false);
  for (const Bucket& b : buckets) {
    for (int32_t item : b.items) {
      if (item >= 0 && static_cast<size_t>(item) < in.size()) in[static_cast<size_t>(item)] = true;
    }
  }
  return in;
}

std::vector<uint32_t> Map::DefaultReweights() const {
  const std::vector<bool> in = DevicesInBuckets();
  std::vector<uint32_t> w(in.size());
  for (size_t d = 0; d < in.size(); ++d) w[d] = in[d] ? kWeightOne : 0;
  return w;
}

}  // namespace chsim::crush
