#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""check_golden.py must fail, never skip, when golden data is missing: a variant without its
map directory, a directory that variants.tsv does not name, an empty golden file. And it
passes a small copy of the real goldens (spymemcached on list s3, first 50 keys).

Usage: check_golden_selftest.py CHSIM"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
CHSIM = os.path.abspath(sys.argv[1])


class MissingGoldenFails(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.g = os.path.join(self._tmp.name, "golden")
        os.makedirs(os.path.join(self.g, "lists"))
        os.makedirs(os.path.join(self.g, "map", "spymemcached"))
        shutil.copy(os.path.join(GOLDEN, "lists", "s3.txt"), os.path.join(self.g, "lists"))
        with open(os.path.join(GOLDEN, "map", "spymemcached", "s3.tsv"), "rb") as f:
            rows = f.read().split(b"\n")[:50]
        with open(os.path.join(self.g, "map", "spymemcached", "s3.tsv"), "wb") as f:
            f.write(b"\n".join(rows) + b"\n")
        self.variants = "spymemcached\t--profile spymemcached\n"
        self.write_variants()

    def tearDown(self):
        self._tmp.cleanup()

    def write_variants(self):
        with open(os.path.join(self.g, "variants.tsv"), "w") as f:
            f.write(self.variants)

    def check(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "check_golden.py"), "--chsim",
                            CHSIM, "--golden", self.g], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def test_the_small_copy_passes(self):
        code, out = self.check()
        self.assertEqual(code, 0, out)
        self.assertIn("1 passed, 0 failed", out)

    def test_a_variant_without_its_directory_fails(self):
        self.variants += "libmemcached\t--profile libmemcached\n"
        self.write_variants()
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("FAIL libmemcached: no golden directory map/libmemcached", out)

    def test_a_directory_variants_tsv_does_not_name_fails(self):
        os.makedirs(os.path.join(self.g, "map", "twemproxy"))
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("FAIL map/twemproxy", out)

    def test_an_empty_golden_file_fails(self):
        open(os.path.join(self.g, "map", "spymemcached", "s3.tsv"), "w").close()
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("is empty", out)

    def test_an_empty_variant_directory_fails(self):
        os.remove(os.path.join(self.g, "map", "spymemcached", "s3.tsv"))
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("holds no golden file", out)

    def test_a_wrong_mapping_fails(self):
        path = os.path.join(self.g, "map", "spymemcached", "s3.tsv")
        with open(path, "rb") as f:
            rows = f.read().split(b"\n")
        key, server = rows[0].split(b"\t")
        other = b"10.0.0.1:11211" if server != b"10.0.0.1:11211" else b"10.0.0.2:11211"
        rows[0] = key + b"\t" + other
        with open(path, "wb") as f:
            f.write(b"\n".join(rows))
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("1 of 50 keys differ", out)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[2:])
