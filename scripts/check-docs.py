#!/usr/bin/env python3
"""Checks that the docs name only what exists: every file or folder of the repository, long
flag and test that README.md and docs/*.md write in backticks, and every link's target.

- a path: a word with a '/' whose first part is a top-level entry of the repository (or
  ../shared, when that folder is there), without placeholders (<op>, *, ...); it must exist;
- a long flag (--name): it must be written somewhere in the repository's code, scripts or
  build files (the tools declare their flags there);
- a test: a word of the form <kind>_<name> for the suite's kinds (gvsoc_, rtl_, firmware_,
  cli_, ...) or a GoogleTest case (Suite.Name, Suite.*), read as ctest -R reads it (a regular
  expression found in a test's name): it must find at least one test of the build (ctest -N
  in BUILD), unless it is one of the build's labels (ctest -L);
- a link ([text](target), not a URL): its target must exist, relative to the page.

Prints each name that does not exist as FILE:LINE: what, and exits 1 if there is any.

    scripts/check-docs.py [--root DIR] [--build DIR] [FILE.md ...]

Without --build the tests are not checked. Python's standard library only."""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctest_list import labels, test_names  # noqa: E402

TEST_KINDS = ("gvsoc", "rtl", "firmware", "cli", "deeploy", "fuzz", "freestanding", "install", "bench")
CODE_SUFFIXES = (".c", ".cpp", ".h", ".hpp", ".py", ".sh", ".cmake", ".txt", ".def", ".json", ".S", ".in", ".ld")
PLACEHOLDER = re.compile(r"[<>*{}$|…]|\.\.\.")


def tracked_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if out.returncode != 0:  # not a checkout (an exported tree): every file under root
        return [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) if "/.git" not in d for f in fs]
    return out.stdout.split()


def known_flags(root, files):
    flags = set()
    for f in files:
        if f.endswith(".md") or not (f.endswith(CODE_SUFFIXES) or f.startswith((".ci/", "scripts/"))):
            continue
        try:
            with open(os.path.join(root, f), errors="replace") as h:
                flags.update(re.findall(r"--[a-z][a-z0-9-]*", h.read()))
        except (IsADirectoryError, FileNotFoundError):
            pass
    return flags


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the repository (default: this script's)")
    ap.add_argument("--build", help="a configured build folder: check test names against its ctest -N")
    ap.add_argument("docs", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    docs = args.docs or ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    files = tracked_files(root)
    top = {f.split("/")[0] for f in files}
    shared = os.path.join(root, "..", "shared")
    flags = known_flags(root, files)
    tests = test_names(args.build) if args.build else None
    label_names = labels(args.build) if args.build else set()
    test_word = re.compile(r"^((%s)_[A-Za-z0-9_().|?+\[\]\\-]+|[A-Z][A-Za-z0-9]+\.([A-Z][A-Za-z0-9]*|\*))$" % "|".join(TEST_KINDS))
    problems = []
    for doc in docs:
        path = doc if os.path.isabs(doc) else os.path.join(root, doc)
        with open(path) as h:
            in_block = False
            for number, line in enumerate(h, 1):
                if line.lstrip().startswith("```"):
                    in_block = not in_block
                    continue
                if not in_block:  # a link's target, relative to the page
                    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
                        if "://" in target or target.startswith("mailto:"):
                            continue
                        at = os.path.normpath(os.path.join(os.path.dirname(path), target))
                        if os.path.relpath(at, root).startswith("../shared") and not os.path.isdir(shared):
                            continue
                        if not os.path.exists(at):
                            problems.append(f"{doc}:{number}: link {target} does not exist")
                spans = [line.strip()] if in_block else re.findall(r"`([^`]+)`", line)
                for span in spans:
                    for word in span.split():
                        word = word.strip("\"',;:()")
                        where = f"{doc}:{number}"
                        if word.startswith("--") and re.match(r"^--[a-z][a-z0-9-]*", word):
                            flag = re.match(r"^--[a-z][a-z0-9-]*", word).group(0)
                            if flag not in flags:
                                problems.append(f"{where}: flag {flag} is in no tool, script or build file")
                            continue
                        if "/" in word and not PLACEHOLDER.search(word) and "://" not in word:
                            rel = word.rstrip("/").split(":")[0]
                            first = rel.split("/")[0]
                            if first == ".." and rel.startswith("../shared"):
                                if os.path.isdir(shared) and not os.path.exists(os.path.join(root, rel)):
                                    problems.append(f"{where}: {word} does not exist")
                            elif first in top and not os.path.exists(os.path.join(root, rel)):
                                problems.append(f"{where}: {word} does not exist")
                            continue
                        if tests is not None and test_word.match(word) and word not in label_names:
                            try:
                                pattern = re.compile(word.replace(".*", ".") if word.endswith(".*") else word)
                            except re.error:
                                problems.append(f"{where}: {word} is not a regular expression ctest -R takes")
                                continue
                            if not any(pattern.search(t) for t in tests):
                                problems.append(f"{where}: test {word} does not exist (ctest -R finds none)")
    for p in problems:
        print(p)
    print(f"check-docs: {len(docs)} files, {len(problems)} names that do not exist")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
