// SPDX-License-Identifier: Apache-2.0
// hash4j's ConsistentHashing.jumpBackAnchorHash(PseudoRandomGeneratorProvider.splitMix64_V1())
// over seeded random histories of adds and removes, for tests/compat/generate-hash4j (compiled
// there against hash4j's sources in a temp dir; never against code of chsim).
//
// stdin: one history a line, "SEED N0 STEPS REMOVE_PERMILLE": build N0 buckets, then STEPS
// steps, each a removal with probability REMOVE_PERMILLE / 1000 (never of the last bucket; a
// quarter of removals take the highest live bucket, the others a uniform live one) or an add
// (always below 2 live buckets, never at MAX_BUCKETS). Choices come from
// java.util.SplittableRandom(SEED). After the build and after every step, 1000 keys are
// located: key i is output i of hash4j's splitMix64_V1 generator seeded with SEED.
// stdout, per history: "H SEED N0", then "B N0 DIGEST K0 K1 K2" and per step
// "A BUCKET ..." (the bucket addBucket returned) or "R BUCKET ..." (the bucket removed),
// DIGEST being FNV-1a 64 over the 1000 buckets as words (d = (d ^ bucket) * 0x100000001b3 from
// 0xcbf29ce484222325), hex, and K0..K2 the first three keys' buckets.
import com.dynatrace.hash4j.consistent.ConsistentBucketSetHasher;
import com.dynatrace.hash4j.consistent.ConsistentHashing;
import com.dynatrace.hash4j.random.PseudoRandomGenerator;
import com.dynatrace.hash4j.random.PseudoRandomGeneratorProvider;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.util.SplittableRandom;

public final class Hash4jDriver {
  static final int KEYS = 1000;
  static final int MAX_BUCKETS = 10000;

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, "UTF-8"));
    String line;
    while ((line = in.readLine()) != null) {
      String[] f = line.trim().split("\\s+");
      if (f.length != 4) continue;
      history(Long.parseLong(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]),
          Integer.parseInt(f[3]), out);
    }
    out.flush();
  }

  static void history(long seed, int n0, int steps, int removePermille, BufferedWriter out)
      throws Exception {
    PseudoRandomGenerator keyGen = PseudoRandomGeneratorProvider.splitMix64_V1().create(seed);
    long[] keys = new long[KEYS];
    for (int i = 0; i < KEYS; ++i) keys[i] = keyGen.nextLong();
    ConsistentBucketSetHasher h =
        ConsistentHashing.jumpBackAnchorHash(PseudoRandomGeneratorProvider.splitMix64_V1());
    int[] live = new int[MAX_BUCKETS + 1];  // live buckets, any order
    int[] at = new int[MAX_BUCKETS + 1];    // bucket -> index in live
    int n = 0;
    for (int i = 0; i < n0; ++i) {
      int b = h.addBucket();
      if (b != i) throw new IllegalStateException("build: bucket " + b + " at add " + i);
      live[n] = b;
      at[b] = n++;
    }
    SplittableRandom rng = new SplittableRandom(seed);
    out.write("H " + seed + " " + n0 + "\n");
    emit(out, "B " + n0, h, keys);
    for (int s = 0; s < steps; ++s) {
      boolean remove =
          n >= MAX_BUCKETS || (n >= 2 && rng.nextInt(1000) < removePermille);
      if (remove) {
        int b;
        if (rng.nextInt(4) == 0) {
          b = -1;
          for (int i = 0; i < n; ++i) b = Math.max(b, live[i]);
        } else {
          b = live[rng.nextInt(n)];
        }
        if (!h.removeBucket(b)) throw new IllegalStateException("remove " + b + " refused");
        int last = live[--n];
        live[at[b]] = last;
        at[last] = at[b];
        emit(out, "R " + b, h, keys);
      } else {
        int b = h.addBucket();
        live[n] = b;
        at[b] = n++;
        emit(out, "A " + b, h, keys);
      }
    }
  }

  static void emit(BufferedWriter out, String head, ConsistentBucketSetHasher h, long[] keys)
      throws Exception {
    long d = 0xcbf29ce484222325L;
    int[] first = new int[3];
    for (int i = 0; i < keys.length; ++i) {
      int b = h.getBucket(keys[i]);
      if (i < 3) first[i] = b;
      d = (d ^ (b & 0xFFFFFFFFL)) * 0x100000001b3L;
    }
    out.write(head + " " + Long.toHexString(d) + " " + first[0] + " " + first[1] + " "
        + first[2] + "\n");
  }
}
