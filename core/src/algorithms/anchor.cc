// `anchor`: AnchorHash (Mendelson, Vargaftik, Barabash, Lorenz, Keslassy &
// Orda, "AnchorHash: A Scalable Consistent Hash", IEEE/ACM ToN 2021,
// arXiv:1812.09674), Algorithm 3, the minimal-memory implementation.
//
// An anchor of `a` buckets (the capacity) holds the working buckets; each
// removed bucket b records A[b] = |W_b|, the working-set size just after its
// removal, and a key that lands on a removed bucket is rehashed into W_b,
// following the successor chain K of buckets removed earlier. Any working
// bucket can be removed; adding restores the most recently removed bucket
// (the R stack), so node ids map to buckets through a table. Consistency is
// full: a removal moves only the removed bucket's keys, an addition moves keys
// only to the added bucket. The anchor cannot grow beyond `a` working buckets:
// Add then throws Unsupported. No weights.
//
// Restoring a node (Add with a node removed before) follows ADDBUCKET: it
// takes the bucket on top of R, whichever node it is for. Restored in reverse
// removal order, each node gets its own bucket back and every key returns to
// it. In any other order the node gets the bucket removed last, with that
// bucket's keys; once all are restored every key is on its start bucket, but
// those buckets are permuted among the restored nodes (capabilities:
// history_free = false; tests/algorithms/restore_test.cc predicts every key).
// Handing back an earlier-removed bucket x instead would break a guarantee:
// every removal after x rehashed its keys modulo an |W_b| that counts x out,
// so the only paper state with x working (the history without x) moves those
// keys between survivors (the test measures it); swapping x with R's top
// changes both buckets' A and moves the top's keys the same way; clearing A[x]
// in place keeps consistency but not the W/L/A bookkeeping later removals need
// for balance (the bucket that took x's place in W keeps no position).
//
// Key hashes are spread with Mix64 before range reduction, and h_b(k) is
// Mix2(k, b): independent per bucket, as the paper's analysis assumes.
#include "internal.h"

namespace chsim::algorithms_internal {
namespace {

constexpr std::string_view kName = "anchor";

class Anchor final : public Algorithm {
 public:
  Anchor(std::span<const Node> nodes, uint32_t capacity)
      : a_(capacity),
        A_(capacity, 0),
        K_(capacity),
        L_(capacity),
        W_(capacity),
        n_(static_cast<uint32_t>(nodes.size())),
        nodes_(nodes, capacity) {
    for (uint32_t b = 0; b < a_; ++b) K_[b] = L_[b] = W_[b] = b;
    for (uint32_t b = a_; b-- > n_;) {  // buckets n..a-1 start removed
      R_.push_back(b);
      A_[b] = b;
    }
  }

  std::string_view name() const noexcept override { return kName; }
  Capabilities capabilities() const noexcept override { return kAnchorCapabilities; }
  uint32_t Locate(uint64_t key_hash) const noexcept override {
    return nodes_.IdAt(GetBucket(Mix64(key_hash)));
  }
  size_t num_nodes() const noexcept override { return nodes_.size(); }
  std::vector<uint32_t> live_ids() const override { return nodes_.ids(); }

  uint32_t Add(const Node& node) override {
    nodes_.CheckNew(kName, node);
    if (R_.empty()) {
      throw Unsupported("anchor: capacity " + std::to_string(a_) +
                        " reached; build with a larger capacity");
    }
    // ADDBUCKET: b <- R.pop(); A[b] <- 0; L[W[N]] <- N; W[L[b]] <- K[b] <- b; N <- N + 1.
    const uint32_t b = R_.back();
    R_.pop_back();
    A_[b] = 0;
    L_[W_[n_]] = n_;
    W_[L_[b]] = K_[b] = b;
    ++n_;
    return nodes_.Place(b, node);
  }
  void Remove(uint32_t id) override {
    const uint32_t b = nodes_.Release(kName, id);
    // REMOVEBUCKET: R.push(b); N <- N - 1; A[b] <- N; W[L[b]] <- K[b] <- W[N]; L[W[N]] <- L[b].
    R_.push_back(b);
    --n_;
    A_[b] = n_;
    W_[L_[b]] = K_[b] = W_[n_];
    L_[W_[n_]] = L_[b];
  }
  size_t MemoryBytes() const noexcept override {
    return (A_.capacity() + K_.capacity() + L_.capacity() + W_.capacity() + R_.capacity()) *
               sizeof(uint32_t) +
           nodes_.MemoryBytes();
  }

 private:
  // GETBUCKET(k): b <- hash(k) mod a; while A[b] > 0 { h <- h_b(k) mod A[b];
  // while A[h] >= A[b] { h <- K[h] }; b <- h }.
  uint32_t GetBucket(uint64_t k) const noexcept {
    uint32_t b = static_cast<uint32_t>(Bounded(k, a_));
    while (A_[b] > 0) {
      uint32_t h = static_cast<uint32_t>(Bounded(Mix64(k ^ Mix64(b)), A_[b]));
      while (A_[h] >= A_[b]) h = K_[h];
      b = h;
    }
    return b;
  }

  uint32_t a_;
  std::vector<uint32_t> A_, K_, L_, W_, R_;
  uint32_t n_;         // N: working buckets
  BucketNodes nodes_;  // ids on the working buckets
};

}  // namespace

std::unique_ptr<Algorithm> NewAnchor(std::span<const Node> nodes, const AlgorithmParams& p) {
  CheckNodes(kName, nodes);
  RequireUnweighted(kName, nodes);
  uint64_t capacity = p.capacity == 0 ? 2 * uint64_t{nodes.size()} : p.capacity;
  if (capacity < nodes.size() || capacity >= UINT32_MAX) {
    throw std::invalid_argument("anchor: capacity " + std::to_string(capacity) +
                                " must be at least the " + std::to_string(nodes.size()) +
                                " initial nodes (0 means twice that)");
  }
  return std::make_unique<Anchor>(nodes, static_cast<uint32_t>(capacity));
}

}  // namespace chsim::algorithms_internal
