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
// Mix64(k ^ Mix64(b)): independent per bucket, as the paper's analysis
// assumes.
//
// Lookup state. GETBUCKET reads only A (and K on a translation). The paper's
// initialization (INITANCHOR) removes buckets a-1, a-2, ..., n in that order,
// so A[b] = b and K[b] = b on each; ADDBUCKET restores them lowest first, and
// only after every bucket removed later. So the buckets at or above the tail
// of R (the lowest initial removal not restored yet; RestoreStack holds the
// tail implicitly) keep A[b] = b, and a key on such a bucket moves to h_b(k)
// mod b with no translation: every bucket below b has A < b (later removals
// record |W| <= tail <= b). GETBUCKET walks the tail with arithmetic alone,
// then tests the bucket it reaches in a bitset of the working buckets (A[b] =
// 0), 1 bit per bucket: 256 KB at a = 2 * 10^6, where A is 8 MB; it reads A
// and K only from a bucket removed since the build. The paper's loop reads A
// at every step, and half the keys start in the tail at the default capacity
// 2n. The first tail step is computed before the branch that needs it and
// selected without a branch, since where a key starts is a coin flip; the
// loop after it runs for ~15% of keys. LocateBatch computes the bucket to
// test for a group of keys and prefetches their bits before testing any
// (devirtualize.h, LocateInGroups). The arrays keep the paper's full state
// (tests/algorithms/anchor_test.cc checks every key against a direct
// transcription of Algorithm 3 over random adds and removals).
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
        n_(static_cast<uint32_t>(nodes.size())),
        A_(a_, 0),
        K_(a_),
        L_(a_),
        W_(a_),
        R_(n_),
        working_(a_, n_),
        buckets_(nodes.size()) {
    for (uint32_t b = 0; b < a_; ++b) K_[b] = L_[b] = W_[b] = b;
    for (uint32_t b = n_; b < a_; ++b) A_[b] = b;  // INITANCHOR: removed in order a-1..n
  }

  uint32_t Locate(uint64_t key_hash) const noexcept override { return Finish(Start(key_hash)); }
  void LocateBatch(std::span<const uint64_t> hashes,
                   std::span<uint32_t> out) const noexcept override {
    LocateInGroups(*this, hashes, out);
  }

  // A lookup's two halves (devirtualize.h): the key, and the bucket that
  // GETBUCKET tests first (its start, or the first step from a start in the
  // tail), whose working bit is prefetched.
  struct Started {
    uint64_t k;
    uint32_t b;
  };
  Started Start(uint64_t key_hash) const noexcept {
    const uint64_t k = Mix64(key_hash);
    const uint32_t b = FirstStep(k);
    working_.Prefetch(b);  // b < a: in bounds
    return {k, b};
  }
  uint32_t Finish(Started s) const noexcept {
    // b in the tail is tested before the bit, whose read may miss the cache:
    // that branch resolves at once when mispredicted.
    if (s.b >= R_.tail() || !working_.Test(s.b)) [[unlikely]] {
      return LocateFrom(s.k, s.b);
    }
    return buckets_.IdAt(s.b);
  }
  bool ViewBuckets(BucketView* view) const noexcept override {
    *view = buckets_.View();
    return true;
  }
  size_t MemoryBytes() const noexcept override {
    return (A_.capacity() + K_.capacity() + L_.capacity() + W_.capacity()) * sizeof(uint32_t) +
           R_.MemoryBytes() + working_.MemoryBytes() + buckets_.MemoryBytes();
  }

 private:
  void OnAdd(const Node&, uint32_t id) override {
    // ADDBUCKET: b <- R.pop(); A[b] <- 0; L[W[N]] <- N; W[L[b]] <- K[b] <- b; N <- N + 1.
    // Admit guarantees R is not empty; Place is the only allocation, done first.
    const uint32_t b = R_.Top();
    buckets_.Place(b, id);
    R_.Pop();
    working_.Set(b);
    A_[b] = 0;
    L_[W_[n_]] = n_;
    W_[L_[b]] = K_[b] = b;
    ++n_;
  }
  void OnRemove(size_t, uint32_t id) override {
    // REMOVEBUCKET: R.push(b); N <- N - 1; A[b] <- N; W[L[b]] <- K[b] <- W[N]; L[W[N]] <- L[b].
    const uint32_t b = buckets_.BucketOf(id);
    R_.Push(b);  // the only allocation, done first
    buckets_.Release(id);
    working_.Clear(b);
    --n_;
    A_[b] = n_;
    W_[L_[b]] = K_[b] = W_[n_];
    L_[W_[n_]] = L_[b];
  }

  // h_b(k) mod range.
  static uint32_t Hop(uint64_t k, uint32_t b, uint32_t range) noexcept {
    return static_cast<uint32_t>(Bounded(Mix64(k ^ Mix64(b)), range));
  }
  // GETBUCKET(k): b <- hash(k) mod a; while A[b] > 0 { h <- h_b(k) mod A[b];
  // while A[h] >= A[b] { h <- K[h] }; b <- h }. FirstStep is its first
  // bucket, or the first step from it when it lies in the tail; LocateFrom
  // finishes the loop from there and maps the bucket to its node.
  uint32_t FirstStep(uint64_t k) const noexcept {
    const uint32_t start = static_cast<uint32_t>(Bounded(k, a_));
    const uint32_t hop = Hop(k, start, start);  // used only when start is in the tail
    return Choose(start >= R_.tail(), hop, start);
  }
  // Tail steps while b is in the tail (A[b] = b: no read, no translation),
  // then the paper's loop below it, whose steps never reach the tail again
  // (A[b] <= N <= the tail, and K holds buckets of the working set). A[h] >=
  // A[b] > 0 only for a removed h: the bit answers for the working ones, so a
  // translation reads A at b alone unless it meets another removed bucket.
  [[gnu::noinline]] uint32_t LocateFrom(uint64_t k, uint32_t b) const noexcept {
    while (b >= R_.tail()) b = Hop(k, b, b);
    while (!working_.Test(b)) {  // A[b] > 0
      const uint32_t ab = A_[b];
      uint32_t h = Hop(k, b, ab);
      while (!working_.Test(h) && A_[h] >= ab) h = K_[h];
      b = h;
    }
    return buckets_.IdAt(b);
  }

  uint32_t a_;
  uint32_t n_;  // N: working buckets
  std::vector<uint32_t> A_, K_, L_, W_;
  // R; its tail: the initial removals never restored, A[b] = b on each.
  RestoreStack R_;
  WorkingBits working_;  // bit b set <=> A[b] = 0, the test of every lookup
  BucketMap buckets_;    // ids on the working buckets
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
    .views = {.buckets = true},
    .params = kParams,
    .balance_bound = 1,
    .memory_bytes =
        [](const Params& p, uint64_t n) {
          return 16.125 * static_cast<double>(CapacityOf(p, n)) + 8.0 * static_cast<double>(n);
        },
    .memory_doc =
        "16 bytes and 1 bit per bucket of capacity, 8 per node; 4 more per add or removal",
    .key_hasher = KeyHasherOrXxh3,
    .admit = Admit,
    .make = MakeAs<Anchor>,
};

}  // namespace chsim::algorithms_internal
