// SPDX-License-Identifier: Apache-2.0
#include "sim/run/copysets.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/base/interrupt.h"
#include "sim/base/rng.h"
#include "sim/base/stats.h"
#include "sim/base/thread_pool.h"

namespace chsim::sim {
namespace {

uint64_t HashIds(std::span<const uint32_t> ids) noexcept {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ ids.size();
  for (uint32_t id : ids) h = Mix(h ^ id);
  return h;
}

// Calls f(subset) for every m-subset of `set` (ascending in, ascending out);
// on the stack up to kMaxSubset.
constexpr uint32_t kMaxSubset = 64;
template <typename F>
void ForEachSubset(std::span<const uint32_t> set, uint32_t m, F&& f) {
  const size_t n = set.size();
  if (m == 0 || m > n) return;
  size_t at_stack[kMaxSubset];
  uint32_t subset_stack[kMaxSubset];
  std::vector<size_t> at_heap(m > kMaxSubset ? m : 0);
  std::vector<uint32_t> subset_heap(m > kMaxSubset ? m : 0);
  size_t* at = m > kMaxSubset ? at_heap.data() : at_stack;
  uint32_t* subset = m > kMaxSubset ? subset_heap.data() : subset_stack;
  for (uint32_t j = 0; j < m; ++j) at[j] = j;
  for (;;) {
    for (uint32_t j = 0; j < m; ++j) subset[j] = set[at[j]];
    f(std::span<const uint32_t>(subset, m));
    uint32_t j = m;
    while (j > 0 && at[j - 1] == n - m + (j - 1)) --j;
    if (j == 0) return;
    ++at[j - 1];
    for (uint32_t i = j; i < m; ++i) at[i] = at[i - 1] + 1;
  }
}

double Choose(double n, double k) noexcept { return std::exp(LogChoose(n, k)); }

// Copysets as flat arrays: the scan's input.
struct FlatCopysets {
  std::vector<uint32_t> ids;
  std::vector<uint32_t> begin = {0};
  std::vector<uint64_t> keys;
  void Add(std::span<const uint32_t> c, uint64_t k) {
    ids.insert(ids.end(), c.begin(), c.end());
    begin.push_back(static_cast<uint32_t>(ids.size()));
    keys.push_back(k);
  }
  size_t size() const noexcept { return keys.size(); }
};

struct SetCounts {
  uint64_t lost = 0, quorum = 0;
};

// A one-hash bit filter in front of a table's Find: most subsets of a failure
// set are no copyset, and the filter (16 bits per entry, at most 32 MiB, in
// cache where the table is not) answers most of those without a probe.
class MissFilter {
 public:
  explicit MissFilter(const CopysetTable& t) {
    size_t bits = size_t{1} << 16;
    while (bits < 16 * t.size() && bits < (size_t{1} << 28)) bits <<= 1;
    words_.assign(bits / 64, 0);
    mask_ = bits - 1;
    t.ForEach([&](std::span<const uint32_t> ids, uint64_t) {
      const uint64_t b = CopysetTable::Hash(ids) >> 20 & mask_;
      words_[b >> 6] |= uint64_t{1} << (b & 63);
    });
  }
  uint64_t Find(const CopysetTable& t, std::span<const uint32_t> ids) const noexcept {
    const uint64_t b = CopysetTable::Hash(ids) >> 20 & mask_;
    return (words_[b >> 6] >> (b & 63) & 1) ? t.Find(ids) : 0;
  }

 private:
  std::vector<uint64_t> words_;
  uint64_t mask_ = 0;
};

// Counts what one failure set costs, by subset lookups or by a scan (the
// cheaper for the request; copysets shorter than R are always scanned).
class LossCounter {
 public:
  LossCounter(const CopysetTable& table, const LossRequest& r)
      : table_(table), r_(r.copies), t_(QuorumLossAt(r.copies)) {
    method_ = r.method == LossRequest::Method::kAuto ? Cheapest(table, r) : r.method;
    table.ForEach([&](std::span<const uint32_t> c, uint64_t keys) {
      if (method_ != Method::kSubsets || c.size() < r_) scan_.Add(c, keys);
    });
    if (method_ == Method::kNodes) BuildNodeIndex(r.live.back() + size_t{1});
    if (method_ != Method::kSubsets) return;
    BuildSubsets();
    filters_.emplace_back(table_);
    for (const CopysetTable& t : subsets_) filters_.emplace_back(t);
  }

  // `failed`: ascending ids; `mark[id]` is 1 exactly for them.
  SetCounts Count(std::span<const uint32_t> failed, const std::vector<uint8_t>& mark) const {
    if (method_ == Method::kNodes) return CountByNodes(failed, mark);
    SetCounts out = Scan(mark);
    if (method_ == Method::kScan) return out;
    // S_k: the keys of full copysets summed over the k-subsets of the
    // failed nodes they contain = sum over keys of C(lost copies, k).
    std::vector<int64_t> s(r_ + 1, 0);
    for (uint32_t k = t_; k <= r_; ++k) {
      const CopysetTable& t = k == r_ ? table_ : subsets_[k - t_];
      const MissFilter& f = filters_[k == r_ ? 0 : 1 + k - t_];
      ForEachSubset(failed, k, [&](std::span<const uint32_t> sub) {
        s[k] += static_cast<int64_t>(f.Find(t, sub));
      });
    }
    // Keys with at least t_ copies lost: sum (-1)^(k-t) C(k-1, t-1) S_k.
    int64_t quorum = 0;
    for (uint32_t k = t_; k <= r_; ++k) {
      const auto c = static_cast<int64_t>(std::llround(Choose(k - 1, t_ - 1)));
      quorum += ((k - t_) % 2 ? -1 : 1) * c * s[k];
    }
    out.lost += static_cast<uint64_t>(s[r_]);
    out.quorum += static_cast<uint64_t>(quorum);
    return out;
  }

 private:
  using Method = LossRequest::Method;

  // The method of least estimated work, in reads of one node's mark: a scan
  // reads every copy of every copyset per set; a subset lookup (hash, filter,
  // probe) counts as kProbe reads, its tables built once; the node walk
  // reads the copies of every copyset of each failed node, its index built
  // once.
  static Method Cheapest(const CopysetTable& table, const LossRequest& r) {
    constexpr double kProbe = 8;
    const uint32_t t = QuorumLossAt(r.copies);
    const double sets = static_cast<double>(r.sets), m = static_cast<double>(table.size());
    const double copies = m * r.copies, per_node = copies / static_cast<double>(r.live.size());
    double lookups = 0, build = 0;
    for (uint32_t k = t; k <= r.copies; ++k) lookups += Choose(r.failed, k);
    for (uint32_t k = t; k < r.copies; ++k) build += m * Choose(r.copies, k);
    const double scan = sets * copies;
    const double subsets = kProbe * (sets * lookups + build);
    const double nodes = sets * r.failed * per_node * r.copies + copies;
    if (nodes < scan && nodes < subsets) return Method::kNodes;
    return subsets < scan ? Method::kSubsets : Method::kScan;
  }

  // The copysets of each node, node by node: node_sets_[node_begin_[id] ..
  // node_begin_[id + 1]) are those that hold node id, each with a copy of its
  // ids in node_ids_, so a node's copysets are read in one sweep.
  void BuildNodeIndex(size_t ids) {
    node_begin_.assign(ids + 1, 0);
    for (uint32_t id : scan_.ids) ++node_begin_[id + 1];
    for (size_t i = 0; i < ids; ++i) node_begin_[i + 1] += node_begin_[i];
    node_sets_.resize(scan_.ids.size());
    std::vector<uint32_t> at(node_begin_.begin(), node_begin_.end() - 1);
    const uint32_t quorum = r_ / 2 + 1;
    for (uint32_t c = 0; c < scan_.size(); ++c) {
      const uint32_t size = scan_.begin[c + 1] - scan_.begin[c];
      if (size < quorum) below_quorum_ += scan_.keys[c];
      for (uint32_t j = scan_.begin[c]; j < scan_.begin[c + 1]; ++j) {
        node_sets_[at[scan_.ids[j]]++] = {scan_.keys[c], c, size};
      }
    }
    node_ids_.reserve(scan_.ids.size() * r_);
    for (NodeSet& e : node_sets_) {
      const uint32_t c = e.ids;
      e.ids = static_cast<uint32_t>(node_ids_.size());
      node_ids_.insert(node_ids_.end(), scan_.ids.begin() + scan_.begin[c],
                       scan_.ids.begin() + scan_.begin[c + 1]);
    }
  }

  // Scan's figures from the copysets that hold a failed node, each counted
  // from its lowest failed member; a copyset shorter than a quorum has lost
  // it whatever fails (below_quorum_).
  SetCounts CountByNodes(std::span<const uint32_t> failed, const std::vector<uint8_t>& mark) const {
    SetCounts out;
    out.quorum = below_quorum_;
    const uint32_t quorum = r_ / 2 + 1;
    for (const uint32_t f : failed) {
      for (uint32_t k = node_begin_[f]; k < node_begin_[f + 1]; ++k) {
        const NodeSet& e = node_sets_[k];
        const uint32_t* ids = node_ids_.data() + e.ids;
        uint32_t lost = 0;
        bool first = true;
        for (uint32_t j = 0; j < e.size && first; ++j) {
          first = !(mark[ids[j]] && ids[j] < f);
          lost += mark[ids[j]];
        }
        if (!first) continue;
        if (lost == e.size) out.lost += e.keys;
        if (e.size >= quorum && e.size - lost < quorum) out.quorum += e.keys;
      }
    }
    return out;
  }

  // The m-subset tables, m = t_..r_-1: each the keys of the full copysets
  // that contain the subset.
  void BuildSubsets() {
    subsets_.resize(r_ - t_);
    table_.ForEach([&](std::span<const uint32_t> c, uint64_t keys) {
      if (c.size() != r_) return;
      for (uint32_t k = t_; k < r_; ++k) {
        ForEachSubset(c, k,
                      [&](std::span<const uint32_t> sub) { subsets_[k - t_].Add(sub, keys); });
      }
    });
  }

  SetCounts Scan(const std::vector<uint8_t>& mark) const {
    SetCounts out;
    const uint32_t quorum = r_ / 2 + 1;
    for (size_t i = 0; i < scan_.size(); ++i) {
      uint32_t lost = 0;
      for (uint32_t j = scan_.begin[i]; j < scan_.begin[i + 1]; ++j) lost += mark[scan_.ids[j]];
      const uint32_t size = scan_.begin[i + 1] - scan_.begin[i];
      if (lost == size) out.lost += scan_.keys[i];
      if (size - lost < quorum) out.quorum += scan_.keys[i];
    }
    return out;
  }

  const CopysetTable& table_;
  uint32_t r_, t_;
  Method method_ = Method::kScan;
  std::vector<CopysetTable> subsets_;
  std::vector<MissFilter> filters_;  // the table's, then each subset table's
  FlatCopysets scan_;                // every copyset, but only the short ones for kSubsets
  // kNodes: each node's copysets (BuildNodeIndex), and the keys of those
  // shorter than a quorum.
  struct NodeSet {
    uint64_t keys;
    uint32_t ids;  // offset of its ids in node_ids_
    uint32_t size;
  };
  std::vector<uint32_t> node_begin_, node_ids_;
  std::vector<NodeSet> node_sets_;
  uint64_t below_quorum_ = 0;
};

// Failure set i: F distinct live ids (Floyd's sampling), ascending; marks them.
void DrawFailureSet(const LossRequest& r, uint64_t i, std::vector<uint8_t>& mark,
                    std::vector<uint32_t>& failed) {
  SplitMix64 g(Derive(r.seed, i));
  const uint64_t n = r.live.size();
  failed.clear();
  for (uint64_t j = n - r.failed; j < n; ++j) {
    uint32_t id = r.live[Bounded(g.Next(), j + 1)];
    if (mark[id]) id = r.live[j];
    mark[id] = 1;
    failed.push_back(id);
  }
  std::sort(failed.begin(), failed.end());
}

void Tally(const SetCounts& c, LossFigures& out) {
  out.sets += 1;
  out.sets_with_loss += c.lost > 0;
  out.sets_with_quorum_loss += c.quorum > 0;
  out.keys_lost += c.lost;
  out.keys_quorum_lost += c.quorum;
}

// Every failure set of F live nodes, in lexicographic order.
void EvaluateAll(const LossCounter& counter, const LossRequest& r, LossFigures& out) {
  std::vector<uint8_t> mark(r.live.back() + size_t{1}, 0);
  ForEachSubset(r.live, r.failed, [&](std::span<const uint32_t> failed) {
    for (uint32_t id : failed) mark[id] = 1;
    Tally(counter.Count(failed, mark), out);
    for (uint32_t id : failed) mark[id] = 0;
    if (r.progress) r.progress(1);
  });
}

// `r.sets` failure sets drawn at random over the workers.
void EvaluateDrawn(const LossCounter& counter, const LossRequest& r, LossFigures& out) {
  const unsigned workers = std::max(1u, r.threads);
  std::vector<LossFigures> part(workers);
  std::vector<std::vector<uint8_t>> marks(workers);
  std::vector<std::vector<uint32_t>> failed(workers);
  constexpr uint64_t kChunk = 64;  // failure sets per item
  ParallelFor((r.sets + kChunk - 1) / kChunk, workers, [&](unsigned w, uint64_t chunk) {
    ThrowIfStopped();
    if (marks[w].empty()) marks[w].assign(r.live.back() + size_t{1}, 0);
    const uint64_t end = std::min(r.sets, (chunk + 1) * kChunk);
    for (uint64_t i = chunk * kChunk; i < end; ++i) {
      DrawFailureSet(r, i, marks[w], failed[w]);
      Tally(counter.Count(failed[w], marks[w]), part[w]);
      for (uint32_t id : failed[w]) marks[w][id] = 0;
    }
    if (r.progress) r.progress(end - chunk * kChunk);
  });
  for (const LossFigures& p : part) {
    out.sets += p.sets;
    out.sets_with_loss += p.sets_with_loss;
    out.sets_with_quorum_loss += p.sets_with_quorum_loss;
    out.keys_lost += p.keys_lost;
    out.keys_quorum_lost += p.keys_quorum_lost;
  }
}

}  // namespace

// --- CopysetTable --------------------------------------------------------------

bool CopysetTable::Packable(std::span<const uint32_t> ids) noexcept {
  return ids.size() <= kPackedIds && ids.back() < (1u << kPackedBits);
}

uint64_t CopysetTable::Pack(std::span<const uint32_t> ids) noexcept {
  uint64_t key = uint64_t{1} << 63 | uint64_t{ids.size()} << 61;
  for (size_t i = 0; i < ids.size(); ++i) key |= uint64_t{ids[i]} << (kPackedBits * i);
  return key;
}

std::span<const uint32_t> CopysetTable::Ids(const Slot& s, uint32_t* scratch) const noexcept {
  if ((s.key >> 63) == 0) return {&arena_[s.key + 1], arena_[s.key]};
  const auto size = static_cast<uint32_t>(s.key >> 61 & 3);
  for (uint32_t i = 0; i < size; ++i) {
    scratch[i] = static_cast<uint32_t>(s.key >> (kPackedBits * i)) & ((1u << kPackedBits) - 1);
  }
  return {scratch, size};
}

uint64_t CopysetTable::Hash(std::span<const uint32_t> ids) noexcept {
  return Packable(ids) ? Mix(Pack(ids)) : HashIds(ids);
}

uint64_t CopysetTable::HashOf(const Slot& s) const noexcept {
  uint32_t scratch[kPackedIds];
  return (s.key >> 63) ? Mix(s.key) : HashIds(Ids(s, scratch));
}

size_t CopysetTable::Probe(std::span<const uint32_t> ids, uint64_t packed,
                           uint64_t hash) const noexcept {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.keys == 0) return i;
    if (packed != 0) {
      if (s.key == packed) return i;
    } else if ((s.key >> 63) == 0 && arena_[s.key] == ids.size() &&
               std::equal(ids.begin(), ids.end(), arena_.begin() + s.key + 1)) {
      return i;
    }
  }
}

void CopysetTable::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(std::max<size_t>(16, old.size() * 2), Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.keys == 0) continue;
    size_t i = HashOf(s) & mask;
    while (slots_[i].keys != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void CopysetTable::Add(std::span<const uint32_t> ids, uint64_t keys) {
  if (keys == 0) return;
  if ((used_ + 1) * 4 > slots_.size() * 3) Grow();  // load factor at most 3/4
  const uint64_t packed = Packable(ids) ? Pack(ids) : 0;
  Slot& s = slots_[Probe(ids, packed, packed ? Mix(packed) : HashIds(ids))];
  if (s.keys == 0) {
    s.key = packed;
    if (packed == 0) {
      s.key = arena_.size();
      arena_.push_back(static_cast<uint32_t>(ids.size()));
      arena_.insert(arena_.end(), ids.begin(), ids.end());
    }
    ++used_;
  }
  s.keys += keys;
  keys_ += keys;
}

void CopysetTable::Merge(const CopysetTable& other) {
  uint32_t scratch[kPackedIds];
  for (const Slot& s : other.slots_) {
    if (s.keys != 0) Add(other.Ids(s, scratch), s.keys);
  }
}

uint64_t CopysetTable::Find(std::span<const uint32_t> ids) const noexcept {
  if (slots_.empty()) return 0;
  const uint64_t packed = Packable(ids) ? Pack(ids) : 0;
  return slots_[Probe(ids, packed, packed ? Mix(packed) : HashIds(ids))].keys;
}

void CopysetTable::ForEach(
    const std::function<void(std::span<const uint32_t>, uint64_t)>& f) const {
  uint32_t scratch[kPackedIds];
  for (const Slot& s : slots_) {
    if (s.keys != 0) f(Ids(s, scratch), s.keys);
  }
}

size_t CopysetTable::MemoryBytes() const noexcept {
  return slots_.capacity() * sizeof(Slot) + arena_.capacity() * sizeof(uint32_t);
}

// --- Loss ----------------------------------------------------------------------

double LogChoose(double n, double k) noexcept {
  if (k < 0 || k > n) return -std::numeric_limits<double>::infinity();
  return LogGamma(n + 1) - LogGamma(k + 1) - LogGamma(n - k + 1);
}

double CopysetsLossProbability(double nodes, double failed, double copies,
                               double copysets) noexcept {
  if (failed < copies || copysets <= 0) return 0;
  const double share = copysets / Choose(nodes, copies);
  if (share >= 1) return 1;
  return -std::expm1(Choose(failed, copies) * std::log1p(-share));
}

uint32_t QuorumLossAt(uint32_t copies) noexcept { return copies - copies / 2; }

double ExpectedReplicaNeighbours(double peers, double points, double copies) noexcept {
  return peers * -std::expm1(2 * points * (copies - 1) * std::log1p(-1 / peers));
}

LossFigures EvaluateLoss(const CopysetTable& table, const LossRequest& r) {
  LossFigures out;
  out.keys = table.keys();
  out.copysets = table.size();
  const double n = static_cast<double>(r.live.size()), f = r.failed;
  // Exact expectation: a copyset of s nodes is inside the failure set with
  // probability C(N-s, F-s) / C(N,F) = C(F,s) / C(N,s).
  std::vector<uint64_t> keys_by_size(r.copies + 1, 0);
  table.ForEach([&](std::span<const uint32_t> c, uint64_t keys) {
    keys_by_size[std::min<size_t>(c.size(), r.copies)] += keys;
    out.full_copysets += c.size() == r.copies;
  });
  double expected = 0;
  for (uint32_t s = 1; s <= r.copies; ++s) {
    if (keys_by_size[s] > 0) {
      expected +=
          static_cast<double>(keys_by_size[s]) * std::exp(LogChoose(f, s) - LogChoose(n, s));
    }
  }
  out.keys_expected = out.keys ? expected / static_cast<double>(out.keys) : 0;
  out.formula = CopysetsLossProbability(n, f, r.copies, static_cast<double>(out.full_copysets));
  if (out.keys == 0 || r.sets == 0) return out;
  const double all_sets = std::round(Choose(n, f));  // exact below 2^53
  out.exhaustive = all_sets <= static_cast<double>(r.sets);
  LossRequest request = r;
  if (out.exhaustive) request.sets = static_cast<uint64_t>(all_sets);
  const LossCounter counter(table, request);
  if (out.exhaustive) {
    EvaluateAll(counter, request, out);
  } else {
    EvaluateDrawn(counter, request, out);
  }
  return out;
}

// --- One domain failing -------------------------------------------------------

DomainLossFigures EvaluateDomainLoss(const CopysetTable& table, std::span<const uint32_t> live,
                                     std::span<const uint32_t> domain_of, uint32_t copies) {
  std::vector<uint32_t> domains;
  for (uint32_t id : live) domains.push_back(domain_of[id]);
  std::sort(domains.begin(), domains.end());
  domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
  auto index = [&](uint32_t id) {
    return static_cast<size_t>(std::lower_bound(domains.begin(), domains.end(), domain_of[id]) -
                               domains.begin());
  };
  std::vector<uint64_t> lost(domains.size(), 0), quorum(domains.size(), 0);
  uint64_t below_quorum = 0;  // short copysets below a quorum whatever fails
  const uint32_t need = copies / 2 + 1;
  table.ForEach([&](std::span<const uint32_t> c, uint64_t keys) {
    const uint32_t size = static_cast<uint32_t>(c.size());
    if (size < need) below_quorum += keys;
    for (uint32_t i = 0; i < size; ++i) {
      const size_t d = index(c[i]);
      uint32_t in = 0, first = i;
      for (uint32_t j = 0; j < size; ++j) {
        if (index(c[j]) != d) continue;
        ++in;
        first = std::min(first, j);
      }
      if (first != i) continue;  // each domain of the copyset once
      if (in == size) lost[d] += keys;
      if (size - in < need && size >= need) quorum[d] += keys;
    }
  });
  DomainLossFigures out;
  out.domains = static_cast<uint32_t>(domains.size());
  out.keys = table.keys();
  for (size_t d = 0; d < domains.size(); ++d) {
    const uint64_t q = quorum[d] + below_quorum;
    out.max_keys_lost = std::max(out.max_keys_lost, lost[d]);
    out.sum_keys_lost += lost[d];
    out.domains_with_loss += lost[d] > 0;
    out.max_quorum_lost = std::max(out.max_quorum_lost, q);
    out.sum_quorum_lost += q;
    out.domains_with_quorum_loss += q > 0;
  }
  return out;
}

// --- Scatter width ------------------------------------------------------------

ScatterWidthFigures ScatterWidths(const CopysetTable& table, std::span<const uint32_t> live) {
  ScatterWidthFigures out;
  if (live.empty()) return out;
  std::vector<std::vector<uint32_t>> peers(live.back() + size_t{1});
  std::vector<size_t> distinct(peers.size(), 0);
  auto dedupe = [](std::vector<uint32_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  table.ForEach([&](std::span<const uint32_t> c, uint64_t) {
    for (uint32_t a : c) {
      std::vector<uint32_t>& p = peers[a];
      for (uint32_t b : c) {
        if (b != a) p.push_back(b);
      }
      if (p.size() > 2 * distinct[a] + 64) {  // keeps a list within twice its distinct peers
        dedupe(p);
        distinct[a] = p.size();
      }
    }
  });
  out.min = std::numeric_limits<uint32_t>::max();
  uint64_t sum = 0;
  for (uint32_t id : live) {
    dedupe(peers[id]);
    const auto w = static_cast<uint32_t>(peers[id].size());
    sum += w;
    out.min = std::min(out.min, w);
    out.max = std::max(out.max, w);
  }
  out.mean = static_cast<double>(sum) / static_cast<double>(live.size());
  return out;
}

}  // namespace chsim::sim
