// SPDX-License-Identifier: Apache-2.0
// groupcache's own peer choice, for tests/compat/generate-proxies: an HTTPPool
// (never serving: nothing listens) set to the peers given, then PickPeer for
// each key line of stdin; prints the chosen peer's URL per line.
//
//	groupcache_peer REPLICAS PEER... < keys   (REPLICAS 0: HTTPPool's default)
//
// Keys are the bytes between '\n's, verbatim. The pool's self is a URL that
// is not a peer, so PickPeer answers every key.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/golang/groupcache"
)

func main() {
	replicas, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "groupcache_peer: bad REPLICAS:", err)
		os.Exit(2)
	}
	pool := groupcache.NewHTTPPoolOpts("http://self.invalid:1",
		&groupcache.HTTPPoolOptions{Replicas: replicas})
	pool.Set(os.Args[2:]...)
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for {
		line, err := in.ReadString('\n')
		if err == io.EOF && line == "" {
			return
		}
		if err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "groupcache_peer:", err)
			os.Exit(1)
		}
		key := strings.TrimSuffix(line, "\n")
		getter, ok := pool.PickPeer(key)
		if !ok {
			fmt.Fprintf(os.Stderr, "groupcache_peer: no peer for %q\n", key)
			os.Exit(1)
		}
		// The getter is the pool's httpGetter{transport, baseURL: peer + BasePath}.
		s := fmt.Sprintf("%+v", getter)
		at := strings.Index(s, "baseURL:")
		if at < 0 {
			fmt.Fprintln(os.Stderr, "groupcache_peer: unexpected getter", s)
			os.Exit(1)
		}
		url := strings.TrimSuffix(strings.TrimSuffix(s[at+len("baseURL:"):], "}"), "/_groupcache/")
		fmt.Fprintln(out, url)
	}
}
