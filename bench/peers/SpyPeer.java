// SPDX-License-Identifier: Apache-2.0
// spymemcached's side of the peer harness (bench/peers/run): KetamaNodeLocator
// builds and getPrimary lookups (KETAMA_HASH, the everyday constructor) over the
// same files, JIT warmed by unmeasured passes first. Never connects: nodes are
// dynamic proxies whose only working method is getSocketAddress(), made as
// AddrUtil does (new InetSocketAddress(host, port)).
//
// Usage: java -cp spymemcached.jar:. SpyPeer KEYS_FILE SERVERS_FILE PASSES
// Output: JSON lines as chsim_peer's (checksum over owner indexes).
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import net.spy.memcached.*;

public class SpyPeer {
  // The main thread's CPU time, as chsim_peer (JIT and GC threads excluded).
  static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
  static long now() { return CPU.getCurrentThreadCpuTime(); }

  static MemcachedNode node(InetSocketAddress addr) {
    return (MemcachedNode) Proxy.newProxyInstance(
        SpyPeer.class.getClassLoader(), new Class<?>[] {MemcachedNode.class},
        (proxy, m, args) -> {
          switch (m.getName()) {
            case "getSocketAddress": return addr;
            case "hashCode": return System.identityHashCode(proxy);
            case "equals": return proxy == args[0];
            case "toString": return "node " + addr;
            default: throw new UnsupportedOperationException(m.getName());
          }
        });
  }

  static void report(String op, double[] ns, long checksum) {
    double[] s = ns.clone();
    Arrays.sort(s);
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "{\"op\": \"%s\", \"ns\": %.4f, \"samples\": [", op, s[s.length / 2]));
    for (int i = 0; i < ns.length; i++) b.append(i > 0 ? ", " : "").append(String.format(Locale.ROOT, "%.4f", ns[i]));
    b.append("], \"checksum\": \"").append(Long.toUnsignedString(checksum)).append("\"}");
    System.out.println(b);
    System.out.flush();
  }

  public static void main(String[] a) throws Exception {
    List<String> keys = new ArrayList<>();
    byte[] all = Files.readAllBytes(Paths.get(a[0]));
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        keys.add(new String(all, start, i - start, StandardCharsets.UTF_8));
        start = i + 1;
      }
    }
    List<MemcachedNode> nodes = new ArrayList<>();
    Map<MemcachedNode, Integer> index = new IdentityHashMap<>();
    for (String line : Files.readAllLines(Paths.get(a[1]), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) continue;
      int c = line.lastIndexOf(':');
      MemcachedNode n = node(new InetSocketAddress(line.substring(0, c), Integer.parseInt(line.substring(c + 1))));
      index.put(n, nodes.size());
      nodes.add(n);
    }
    int passes = Integer.parseInt(a[2]);

    // Builds: 10 unmeasured (JIT), then max(passes, 5) measured.
    KetamaNodeLocator loc = null;
    for (int i = 0; i < 10; i++) loc = new KetamaNodeLocator(nodes, DefaultHashAlgorithm.KETAMA_HASH);
    double[] build = new double[Math.max(passes, 5)];
    for (int i = 0; i < build.length; i++) {
      long t0 = now();
      loc = new KetamaNodeLocator(nodes, DefaultHashAlgorithm.KETAMA_HASH);
      build[i] = now() - t0;
    }
    report("build", build, 0);

    int[] owners = new int[keys.size()];
    String[] k = keys.toArray(new String[0]);
    for (int w = 0; w < 2; w++) {  // JIT warm-up passes
      for (int i = 0; i < k.length; i++) owners[i] = index.get(loc.getPrimary(k[i]));
    }
    double[] ns = new double[passes];
    long checksum = 0;
    for (int p = 0; p < passes; p++) {
      long t0 = now();
      for (int i = 0; i < k.length; i++) owners[i] = index.get(loc.getPrimary(k[i]));
      ns[p] = (now() - t0) / (double) k.length;
      checksum = 0;
      for (int o : owners) checksum = checksum * 1000003L + o;
    }
    report("lookup", ns, checksum);
  }
}
