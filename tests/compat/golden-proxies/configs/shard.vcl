vcl 4.1;
import directors;
import std;

backend b1 { .host = "127.0.0.1"; .port = "18501"; }
backend b2 { .host = "127.0.0.1"; .port = "18502"; }
backend b3 { .host = "127.0.0.1"; .port = "18503"; }
backend b4 { .host = "127.0.0.1"; .port = "18504"; }
backend b5 { .host = "127.0.0.1"; .port = "18505"; }
backend b6 { .host = "127.0.0.1"; .port = "18506"; }
backend b7 { .host = "127.0.0.1"; .port = "18507"; }
backend b8 { .host = "127.0.0.1"; .port = "18508"; }
backend b9 { .host = "127.0.0.1"; .port = "18509"; }
backend b10 { .host = "127.0.0.1"; .port = "18510"; }
backend b11 { .host = "127.0.0.1"; .port = "18511"; }
backend b12 { .host = "127.0.0.1"; .port = "18512"; }
backend web-01 { .host = "127.0.0.1"; .port = "18513"; }
backend origin_eu_west_1a { .host = "127.0.0.1"; .port = "18514"; }
backend x { .host = "127.0.0.1"; .port = "18515"; }
backend a_very_long_backend_name_for_the_shard_director_0123456789 { .host = "127.0.0.1"; .port = "18516"; }
backend EU_9 { .host = "127.0.0.1"; .port = "18517"; }
backend z { .host = "127.0.0.1"; .port = "18518"; }

sub vcl_init {
  new varnish_vn5 = directors.shard();
  varnish_vn5.add_backend(b1);
  varnish_vn5.add_backend(b2);
  varnish_vn5.add_backend(b3, weight=2);
  varnish_vn5.add_backend(b4);
  varnish_vn5.add_backend(b5);
  varnish_vn5.reconfigure(replicas=67);
  new varnish_vn12 = directors.shard();
  varnish_vn12.add_backend(b1);
  varnish_vn12.add_backend(b2);
  varnish_vn12.add_backend(b3, weight=2);
  varnish_vn12.add_backend(b4);
  varnish_vn12.add_backend(b5);
  varnish_vn12.add_backend(b6);
  varnish_vn12.add_backend(b7, weight=3);
  varnish_vn12.add_backend(b8);
  varnish_vn12.add_backend(b9);
  varnish_vn12.add_backend(b10);
  varnish_vn12.add_backend(b11);
  varnish_vn12.add_backend(b12);
  varnish_vn12.reconfigure(replicas=67);
  new varnish_vn12r = directors.shard();
  varnish_vn12r.add_backend(b12);
  varnish_vn12r.add_backend(b11);
  varnish_vn12r.add_backend(b10);
  varnish_vn12r.add_backend(b9);
  varnish_vn12r.add_backend(b8);
  varnish_vn12r.add_backend(b7, weight=3);
  varnish_vn12r.add_backend(b6);
  varnish_vn12r.add_backend(b5);
  varnish_vn12r.add_backend(b4);
  varnish_vn12r.add_backend(b3, weight=2);
  varnish_vn12r.add_backend(b2);
  varnish_vn12r.add_backend(b1);
  varnish_vn12r.reconfigure(replicas=67);
  new varnish_vnshapes = directors.shard();
  varnish_vnshapes.add_backend(web-01, weight=3);
  varnish_vnshapes.add_backend(origin_eu_west_1a);
  varnish_vnshapes.add_backend(x, ident="10.0.0.7:8080", weight=2);
  varnish_vnshapes.add_backend(a_very_long_backend_name_for_the_shard_director_0123456789);
  varnish_vnshapes.add_backend(EU_9, ident="cache.example.com", weight=5);
  varnish_vnshapes.add_backend(z, ident="café-ü");
  varnish_vnshapes.reconfigure(replicas=67);
  new varnish_r100_vn12 = directors.shard();
  varnish_r100_vn12.add_backend(b1);
  varnish_r100_vn12.add_backend(b2);
  varnish_r100_vn12.add_backend(b3, weight=2);
  varnish_r100_vn12.add_backend(b4);
  varnish_r100_vn12.add_backend(b5);
  varnish_r100_vn12.add_backend(b6);
  varnish_r100_vn12.add_backend(b7, weight=3);
  varnish_r100_vn12.add_backend(b8);
  varnish_r100_vn12.add_backend(b9);
  varnish_r100_vn12.add_backend(b10);
  varnish_r100_vn12.add_backend(b11);
  varnish_r100_vn12.add_backend(b12);
  varnish_r100_vn12.reconfigure(replicas=100);
  new varnish_r100_vnshapes = directors.shard();
  varnish_r100_vnshapes.add_backend(web-01, weight=3);
  varnish_r100_vnshapes.add_backend(origin_eu_west_1a);
  varnish_r100_vnshapes.add_backend(x, ident="10.0.0.7:8080", weight=2);
  varnish_r100_vnshapes.add_backend(a_very_long_backend_name_for_the_shard_director_0123456789);
  varnish_r100_vnshapes.add_backend(EU_9, ident="cache.example.com", weight=5);
  varnish_r100_vnshapes.add_backend(z, ident="café-ü");
  varnish_r100_vnshapes.reconfigure(replicas=100);
  new cfg_edit = directors.shard();
  cfg_edit.add_backend(b1);
  cfg_edit.add_backend(b2, weight=2);
  cfg_edit.add_backend(b3, ident="third");
  cfg_edit.reconfigure(replicas=50);
  cfg_edit.add_backend(b4, weight=1.5);
  cfg_edit.remove_backend(b2);
  cfg_edit.add_backend(b5, weight=0.5);
  cfg_edit.add_backend(b1);
  new cfg_clear = directors.shard();
  cfg_clear.add_backend(b1);
  cfg_clear.add_backend(b2);
  cfg_clear.reconfigure();
  cfg_clear.clear();
  cfg_clear.add_backend(b3, ident="b2");
  cfg_clear.add_backend(b4, weight=3);
  cfg_clear.reconfigure(replicas=80);
  cfg_clear.remove_backend(ident="b2");
  cfg_clear.add_backend(b5);
  cfg_clear.add_backend(b2);
  cfg_clear.reconfigure(replicas=80);
}

sub vcl_recv {
  if (req.url == "/varnish_vn5") {
    if (req.http.X-Hash) {
      set req.http.X-Be = varnish_vn5.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = varnish_vn5.backend(by=KEY,
          key=varnish_vn5.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/varnish_vn12") {
    if (req.http.X-Hash) {
      set req.http.X-Be = varnish_vn12.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = varnish_vn12.backend(by=KEY,
          key=varnish_vn12.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/varnish_vn12r") {
    if (req.http.X-Hash) {
      set req.http.X-Be = varnish_vn12r.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = varnish_vn12r.backend(by=KEY,
          key=varnish_vn12r.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/varnish_vnshapes") {
    if (req.http.X-Hash) {
      set req.http.X-Be = varnish_vnshapes.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = varnish_vnshapes.backend(by=KEY,
          key=varnish_vnshapes.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/varnish_r100_vn12") {
    if (req.http.X-Hash) {
      set req.http.X-Be = varnish_r100_vn12.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = varnish_r100_vn12.backend(by=KEY,
          key=varnish_r100_vn12.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/varnish_r100_vnshapes") {
    if (req.http.X-Hash) {
      set req.http.X-Be = varnish_r100_vnshapes.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = varnish_r100_vnshapes.backend(by=KEY,
          key=varnish_r100_vnshapes.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/cfg_edit") {
    if (req.http.X-Hash) {
      set req.http.X-Be = cfg_edit.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = cfg_edit.backend(by=KEY,
          key=cfg_edit.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  if (req.url == "/cfg_clear") {
    if (req.http.X-Hash) {
      set req.http.X-Be = cfg_clear.backend(by=KEY,
          key=std.integer(req.http.X-Hash, 0), healthy=IGNORE);
    } else {
      set req.http.X-Be = cfg_clear.backend(by=KEY,
          key=cfg_clear.key(req.http.X-Key), healthy=IGNORE);
    }
    return (synth(200, req.http.X-Be));
  }
  return (synth(404, "no such director"));
}

sub vcl_synth {
  set resp.body = resp.reason;
  return (deliver);
}
