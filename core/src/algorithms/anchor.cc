// SPDX-License-Identifier: Apache-2.0
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
#include "devirtualize.h"
#include "internal.h"

namespace chsim::algorithms_internal {

extern const AlgorithmSpec kAnchorSpec;

namespace {

class Anchor final : public AlgorithmBase {
 public:
  Anchor(std::span<const Node> nodes, const Params& p)
      : AlgorithmBase(kAnchorSpec, nodes, p, LiveList::kUnordered),
        a_(static_cast<uint32_t>(CapacityOf(p, nodes.size()))),
        A_(a_, 0),
        K_(a_),
        L_(a_),
        W_(a_),
        n_(static_cast<uint32_t>(nodes.size())),
        buckets_(nodes.size(), a_) {
    for (uint32_t b = 0; b < a_; ++b) K_[b] = L_[b] = W_[b] = b;
    for (uint32_t b = a_; b-- > n_;) {  // buckets n..a-1 start removed
      R_.push_back(b);
      A_[b] = b;
    }
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override {
    const uint32_t b = GetBucket(Mix64(key_hash));
    return identity_ ? b : buckets_.IdAt(b);
  }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    LocateEach(*this, hashes, out);
  }
  size_t MemoryBytes() const noexcept override {
    return (A_.capacity() + K_.capacity() + L_.capacity() + W_.capacity() + R_.capacity()) *
               sizeof(uint32_t) +
           buckets_.MemoryBytes();
  }

 private:
  void OnAdd(const Node&, uint32_t id) override {
    // ADDBUCKET: b <- R.pop(); A[b] <- 0; L[W[N]] <- N; W[L[b]] <- K[b] <- b; N <- N + 1.
    // Admit guarantees R is not empty; Place is the only allocation, done first.
    const uint32_t b = R_.back();
    buckets_.Place(b, id);
    identity_ = identity_ && id == b;
    R_.pop_back();
    A_[b] = 0;
    L_[W_[n_]] = n_;
    W_[L_[b]] = K_[b] = b;
    ++n_;
  }
  void OnRemove(size_t, uint32_t id) override {
    // REMOVEBUCKET: R.push(b); N <- N - 1; A[b] <- N; W[L[b]] <- K[b] <- W[N]; L[W[N]] <- L[b].
    // The push is the only allocation, done first.
    const uint32_t b = buckets_.BucketOf(id);
    R_.push_back(b);
    buckets_.Release(id);
    --n_;
    A_[b] = n_;
    W_[L_[b]] = K_[b] = W_[n_];
    L_[W_[n_]] = L_[b];
  }
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
  BucketMap buckets_;  // ids on the working buckets
  // Every working bucket b holds id b (each Add so far took the bucket equal
  // to its id): lookups skip the bucket -> id map, a random read of 4a bytes.
  bool identity_ = true;
};

void Admit(const Params& p, const TimelineStep& step) { AdmitCapacity("anchor", p, step); }

constexpr ParamSpec kParams[] = {
    kKeyHasherParam,
    kCapacityParam,
};

}  // namespace

constinit const AlgorithmSpec kAnchorSpec{
    .name = "anchor",
    .summary =
        "AnchorHash, Algorithm 3 (minimal memory): any node removable, capacity fixed "
        "at build",
    .paper =
        "Mendelson, Vargaftik, Barabash, Lorenz, Keslassy & Orda, \"AnchorHash: A "
        "Scalable Consistent Hash\", IEEE/ACM Transactions on Networking 2021",
    .year = 2021,
    .capabilities = kRemovalStackCapabilities,
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes =
        [](const Params& p, uint64_t n) {
          return 20.0 * static_cast<double>(CapacityOf(p, n)) + 8.0 * static_cast<double>(n);
        },
    .memory_doc = "20-24 bytes per bucket of capacity, 8 per node",
    .key_hasher = KeyHasherOrXxh3,
    .admit = Admit,
    .make = MakeAs<Anchor>,
};

}  // namespace chsim::algorithms_internal
