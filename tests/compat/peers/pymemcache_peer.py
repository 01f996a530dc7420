#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""pymemcache's own server choice, for tests/compat/generate-proxies: a HashClient (Debian's
python3-pymemcache; allow_unicode_keys, so UTF-8 keys are accepted; nothing connects) over the
servers given, then _get_client(key).server for each key line of KEYS (UTF-8, one per line);
prints, per key, the index of the server in the list.

    /usr/bin/python3 pymemcache_peer.py KEYS SERVER...
"""
import sys

from pymemcache.client.hash import HashClient


def main():
    servers = sys.argv[2:]
    client = HashClient(servers, allow_unicode_keys=True, connect_timeout=1, timeout=1)
    # The clients, keyed by the node strings the rendezvous hashes, in server order.
    index = {node: i for i, node in enumerate(client.clients)}
    with open(sys.argv[1], "rb") as f:
        keys = f.read().split(b"\n")[:-1]
    out = []
    for k in keys:
        server = client._get_client(k.decode("utf-8")).server
        node = "%s:%s" % server if isinstance(server, tuple) else server
        out.append(str(index[node]))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
