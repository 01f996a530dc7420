// SPDX-License-Identifier: Apache-2.0
// spymemcached 2.12.3 and Guava 31.1 peer driver for chsim's compatibility goldens.
// Never connects: KetamaNodeLocator is built over FakeNode objects whose only working method
// is getSocketAddress(), made exactly as AddrUtil does (new InetSocketAddress(host, port)).
//
// Usage: java -cp spymemcached.jar:guava.jar:. PeerDriver JOBS_FILE
// JOBS_FILE lines (tab-separated):
//   locate FORMAT HASH SERVERS_TSV KEYS_FILE OUT_MAP OUT_RING|-
//        FORMAT: SPYMEMCACHED | LIBMEMCACHED; HASH: a DefaultHashAlgorithm name.
//        SERVERS_TSV: LABEL HOST PORT WEIGHT (WEIGHT 0 = unweighted list -> empty weights map)
//   hash KEYS_HEX_FILE OUT         rows spy_<ALG> KEY_HEX VALUE for every DefaultHashAlgorithm
//   jump INPUTS_FILE OUT           INPUTS_FILE: U64_DECIMAL N per line; rows INPUT N BUCKET
//   murmur3 KEYS_HEX_FILE OUT      rows murmur3_32 KEY_HEX VALUE: Guava's
//                                  Hashing.murmur3_32_fixed() (MurmurHash3_x86_32, seed 0) over
//                                  the key's bytes; and murmur3_32_hashkit_seed KEY_HEX VALUE:
//                                  the same with seed 0xdeadbeef * length (libhashkit's rule)
import java.io.*;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import net.spy.memcached.*;

public class PeerDriver {
  static final class FakeNode implements MemcachedNode {
    final InetSocketAddress addr;
    final String label;
    FakeNode(String label, String host, int port) {
      this.label = label;
      this.addr = new InetSocketAddress(host, port);
    }
    public SocketAddress getSocketAddress() { return addr; }
    private static RuntimeException no() { return new UnsupportedOperationException("FakeNode"); }
    public void copyInputQueue() { throw no(); }
    public Collection<net.spy.memcached.ops.Operation> destroyInputQueue() { throw no(); }
    public void setupResend() { throw no(); }
    public void fillWriteBuffer(boolean b) { throw no(); }
    public void transitionWriteItem() { throw no(); }
    public net.spy.memcached.ops.Operation getCurrentReadOp() { throw no(); }
    public net.spy.memcached.ops.Operation removeCurrentReadOp() { throw no(); }
    public net.spy.memcached.ops.Operation getCurrentWriteOp() { throw no(); }
    public net.spy.memcached.ops.Operation removeCurrentWriteOp() { throw no(); }
    public boolean hasReadOp() { throw no(); }
    public boolean hasWriteOp() { throw no(); }
    public void addOp(net.spy.memcached.ops.Operation o) { throw no(); }
    public void insertOp(net.spy.memcached.ops.Operation o) { throw no(); }
    public int getSelectionOps() { throw no(); }
    public java.nio.ByteBuffer getRbuf() { throw no(); }
    public java.nio.ByteBuffer getWbuf() { throw no(); }
    public boolean isActive() { throw no(); }
    public boolean isAuthenticated() { throw no(); }
    public long lastReadDelta() { throw no(); }
    public void completedRead() { throw no(); }
    public void reconnecting() { throw no(); }
    public void connected() { throw no(); }
    public int getReconnectCount() { throw no(); }
    public void registerChannel(java.nio.channels.SocketChannel c, java.nio.channels.SelectionKey k) { throw no(); }
    public void setChannel(java.nio.channels.SocketChannel c) { throw no(); }
    public java.nio.channels.SocketChannel getChannel() { throw no(); }
    public void setSk(java.nio.channels.SelectionKey k) { throw no(); }
    public java.nio.channels.SelectionKey getSk() { throw no(); }
    public int getBytesRemainingToWrite() { throw no(); }
    public int writeSome() { throw no(); }
    public void fixupOps() { throw no(); }
    public void authComplete() { throw no(); }
    public void setupForAuth() { throw no(); }
    public void setContinuousTimeout(boolean b) { throw no(); }
    public int getContinuousTimeout() { throw no(); }
    public MemcachedConnection getConnection() { throw no(); }
    public void setConnection(MemcachedConnection c) { throw no(); }
  }

  static String decodeStrict(byte[] b) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(java.nio.ByteBuffer.wrap(b)).toString();
  }

  static List<String> readKeys(String path) throws IOException {
    byte[] all = Files.readAllBytes(Paths.get(path));
    List<String> keys = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        keys.add(decodeStrict(Arrays.copyOfRange(all, start, i)));
        start = i + 1;
      }
    }
    if (start != all.length) throw new IOException(path + ": not newline-terminated");
    return keys;
  }

  static byte[] unhex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  @SuppressWarnings("unchecked")
  static void locate(String[] f) throws Exception {
    KetamaNodeKeyFormatter.Format format = KetamaNodeKeyFormatter.Format.valueOf(f[1]);
    HashAlgorithm alg = DefaultHashAlgorithm.valueOf(f[2]);
    List<MemcachedNode> nodes = new ArrayList<>();
    Map<InetSocketAddress, Integer> weights = new HashMap<>();
    for (String line : Files.readAllLines(Paths.get(f[3]), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      String[] c = line.split("\t");
      FakeNode n = new FakeNode(c[0], c[1], Integer.parseInt(c[2]));
      nodes.add(n);
      int w = Integer.parseInt(c[3]);
      if (w > 0) weights.put(new InetSocketAddress(c[1], Integer.parseInt(c[2])), w);
    }
    KetamaNodeLocator loc;
    if (weights.isEmpty() && format == KetamaNodeKeyFormatter.Format.SPYMEMCACHED) {
      loc = new KetamaNodeLocator(nodes, alg); // the everyday constructor
    } else {
      loc = new KetamaNodeLocator(nodes, alg, format, weights);
    }
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f[5]))) {
      for (String k : readKeys(f[4])) {
        FakeNode n = (FakeNode) loc.getPrimary(k);
        out.write((k + "\t" + n.label + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
    if (!f[6].equals("-")) {
      Method m = KetamaNodeLocator.class.getDeclaredMethod("getKetamaNodes");
      m.setAccessible(true);
      TreeMap<Long, MemcachedNode> ring = (TreeMap<Long, MemcachedNode>) m.invoke(loc);
      try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f[6]))) {
        for (Map.Entry<Long, MemcachedNode> e : ring.entrySet()) {
          out.write((Long.toUnsignedString(e.getKey()) + "\t" + ((FakeNode) e.getValue()).label + "\n")
              .getBytes(StandardCharsets.UTF_8));
        }
      }
    }
  }

  static void hash(String[] f) throws Exception {
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f[2]))) {
      for (String hex : Files.readAllLines(Paths.get(f[1]), StandardCharsets.US_ASCII)) {
        String k;
        try {
          k = decodeStrict(unhex(hex));
        } catch (CharacterCodingException e) {
          continue; // spymemcached keys are Strings: only valid UTF-8 keys
        }
        for (DefaultHashAlgorithm a : DefaultHashAlgorithm.values()) {
          out.write(("spy_" + a.name() + "\t" + hex + "\t" + Long.toUnsignedString(a.hash(k)) + "\n")
              .getBytes(StandardCharsets.US_ASCII));
        }
      }
    }
  }

  static void murmur3(String[] f) throws Exception {
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f[2]))) {
      for (String hex : Files.readAllLines(Paths.get(f[1]), StandardCharsets.US_ASCII)) {
        byte[] k = unhex(hex);
        int seed0 = com.google.common.hash.Hashing.murmur3_32_fixed().hashBytes(k).asInt();
        int seeded = com.google.common.hash.Hashing.murmur3_32_fixed(0xdeadbeef * k.length)
            .hashBytes(k).asInt();
        out.write(("murmur3_32\t" + hex + "\t" + Integer.toUnsignedString(seed0) + "\n"
                   + "murmur3_32_hashkit_seed\t" + hex + "\t" + Integer.toUnsignedString(seeded)
                   + "\n").getBytes(StandardCharsets.US_ASCII));
      }
    }
  }

  static void jump(String[] f) throws Exception {
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(f[2]))) {
      for (String line : Files.readAllLines(Paths.get(f[1]), StandardCharsets.US_ASCII)) {
        if (line.isEmpty()) continue;
        String[] c = line.split("\t");
        long input = Long.parseUnsignedLong(c[0]);
        int n = Integer.parseInt(c[1]);
        int b = com.google.common.hash.Hashing.consistentHash(input, n);
        out.write((c[0] + "\t" + n + "\t" + b + "\n").getBytes(StandardCharsets.US_ASCII));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      String[] f = line.split("\t");
      switch (f[0]) {
        case "locate": locate(f); break;
        case "hash": hash(f); break;
        case "jump": jump(f); break;
        case "murmur3": murmur3(f); break;
        default: throw new IllegalArgumentException("unknown job " + f[0]);
      }
    }
  }
}
