#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Comments cite only files in the repo. In tests/, core/, backends/, include/ and scripts/, every
file path ending in .md, .h, .c, .py or .sh that a comment names (C and C++ comments; '#'
comments of shell, CMake and Python; Python docstrings; all of a Markdown file) must be a file
or folder of the repo, resolved against the repo root, the citing file's folder, include/
(<hwsample/fmt.h>) and core/ (the build's include folders, "perfdata/perfdata_int.h"); a bare
name (no '/') must be the name of some file in the repo.
Not checked: system headers in angle brackets (<linux/perf_event.h>), and files of an upstream
project named right before the path ("Linux tools/perf/util/session.c", "Linux 6.1
arch/x86/events/intel/ds.c", "libpfm4's pfmlib_perf_event.h", "upstream `x.sh`"); a list
continues the mark ("Linux a/b.c, c/d.h and e/f.c"). Exit 1 naming each citation not found.
"""
import io
import os
import re
import subprocess
import sys
import tokenize

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
DIRS = ["tests", "core", "backends", "include", "scripts"]
PATH = re.compile(r"(?<![\w./$-])(<?)((?:\.{1,2}/|[\w.+-]+/)*[\w+-][\w.+-]*\.(?:md|h|c|py|sh))"
                  r"(?![\w/])")
# an upstream project named right before a path (a version may follow the name)
UPSTREAM = re.compile(r"\b(?:Linux|Linux's|kernel's|perf|perf's|libpfm4|libpfm4's|libtraceevent|"
                      r"zstd|zstd's|binutils|glibc|uapi|upstream)(?:\s+v?\d+(?:\.\d+)*)?"
                      r"[\s(`'\",:]*$")
LIST_SEP = re.compile(r"[`'\"]?\s*(?:,|,?\s*and|,?\s*or)?\s*[`'\"]?")
LEADER = re.compile(r"\n[ \t]*(?:\*(?!/)|//+|#+)?")  # a comment's line break and line leader


def git_files(*paths):
    out = subprocess.run(["git", "-C", top, "ls-files", "--", *paths], capture_output=True,
                         text=True, check=True).stdout
    return out.split("\n")[:-1]


def c_comments(t):
    """(line, text) of each /* */ and // comment of C source @t, string and character
    literals skipped"""
    out, i, n, line = [], 0, len(t), 1
    while i < n:
        c = t[i]
        if t.startswith("/*", i) or t.startswith("//", i):
            j = t.find("*/", i + 2) + 2 if t[i + 1] == "*" else t.find("\n", i)
            j = n if j < 2 or j > n else j
            out.append((line, t[i:j]))
            line += t.count("\n", i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and t[j] != c and t[j] != "\n":
                j += 2 if t[j] == "\\" else 1
            line += t.count("\n", i, j + 1)
            i = j + 1
        else:
            line += c == "\n"
            i += 1
    return out


def hash_comments(t):
    """'#' comments of shell and CMake: a '#' at the start of a word, outside quotes"""
    out = []
    for k, l in enumerate(t.split("\n"), 1):
        bare = re.sub(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", lambda m: " " * len(m.group()), l)
        m = re.search(r"(?:^|\s)#", bare)
        if m:
            out.append((k, l[m.end() - 1:]))
    return out


def py_comments(t):
    """'#' comments and docstrings (strings standing alone as a statement) of Python"""
    out, prev = [], tokenize.NEWLINE
    try:
        for tok in tokenize.generate_tokens(io.StringIO(t).readline):
            if tok.type == tokenize.COMMENT:
                out.append((tok.start[0], tok.string))
            elif tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT,
                                                         tokenize.DEDENT):
                out.append((tok.start[0], tok.string))
            if tok.type not in (tokenize.COMMENT, tokenize.NL):
                prev = tok.type
    except (tokenize.TokenError, SyntaxError) as e:
        bad.append(f"cannot tokenize: {e}")
    return out


allfiles = set(git_files())
folders = {os.path.dirname(f) for f in allfiles}
folders |= {os.path.dirname(d) for d in list(folders)}
basenames = {os.path.basename(f) for f in allfiles}
bad = []


def found(path, here):
    for base in ("", here, "include", "core"):
        p = os.path.normpath(os.path.join(base, path))
        if p in allfiles or p in folders:
            return True
    return "/" not in path and path in basenames


for f in git_files(*DIRS):
    p = os.path.join(top, f)
    if not os.path.isfile(p):
        continue
    try:
        text = open(p, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue  # binary (fuzz corpus, fixtures)
    name = os.path.basename(f)
    if f.endswith((".c", ".h")):
        comments = c_comments(text)
    elif f.endswith(".py"):
        comments = py_comments(text)
    elif f.endswith(".md"):
        comments = [(1, text)]
    elif f.endswith((".sh", ".cmake")) or name == "CMakeLists.txt" or text.startswith("#!"):
        comments = hash_comments(text)
    else:
        continue
    for line, c in comments:
        prev_end, prev_upstream = None, False
        for m in PATH.finditer(c):
            path = m.group(2)
            # the text before the path on its line and the line before, leaders removed
            before = LEADER.sub(" ", "\n".join(c[:m.start()].split("\n")[-2:]))
            upstream = bool(UPSTREAM.search(before)) or (
                prev_upstream and
                LIST_SEP.fullmatch(LEADER.sub(" ", c[prev_end:m.start()])) is not None)
            prev_end, prev_upstream = m.end(), upstream
            if upstream or (m.group(1) == "<" and not path.startswith("hwsample/")):
                continue
            if not found(path, os.path.dirname(f)):
                bad.append(f"{f}:{line + c.count(chr(10), 0, m.start())}: cites {path}, "
                           "which is not in the repo")

for b in bad:
    print("FAIL:", b)
if bad:
    print("Name the repo file that carries the fact, say the fact in place, or name the "
          "upstream project right before its file (\"Linux tools/perf/util/session.c\").")
print(f"{len(git_files(*DIRS))} files, {len(bad)} citations not found")
sys.exit(1 if bad else 0)
