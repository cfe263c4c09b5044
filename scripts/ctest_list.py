"""What a build's ctest knows, asked without touching its logs: ctest writes
Testing/Temporary/LastTest.log even for -N, which would overwrite (or, during a run, garble)
the log of the suite's own run. So ctest is run from a temporary folder whose CTestTestfile
includes the build's. For scripts/check-docs.py and scripts/check-test-times.py."""
import os
import re
import subprocess
import sys
import tempfile


def ctest(build, *args):
    with tempfile.TemporaryDirectory(prefix="tessera-ctest-list.") as d:
        with open(os.path.join(d, "CTestTestfile.cmake"), "w") as f:
            f.write('subdirs("%s")\n' % os.path.abspath(build).replace("\\", "/").replace('"', '\\"'))
        out = subprocess.run(["ctest", "--test-dir", d, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{os.path.basename(sys.argv[0])}: ctest {' '.join(args)} for {build} failed: {out.stderr.strip()}")
    return out.stdout


def test_names(build, *args):
    """The build's tests (ctest -N), with more ctest arguments (-L quick)."""
    return [n.rstrip() for n in re.findall(r"^\s*Test\s+#\d+: (.+)$", ctest(build, "-N", *args), re.M)]


def labels(build):
    return set(re.findall(r"^  (\S+)$", ctest(build, "--print-labels"), re.M))
