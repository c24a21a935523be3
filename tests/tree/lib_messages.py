#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Library messages do not quote command-line options: the strings of core/ (but core/cli/) and
backends/ name the option that fixes a problem in library terms, as the struct member or the
function ("use more AUX pages (hws_session_opts.aux_pages)"), and the CLI shows its own
option instead (option_names[] in core/cli/main.c). Checked:
  - no string literal there holds something like a command-line option (-m, -F, --per-thread),
    except the commands of other programs a message may tell the user to run (ALLOWED);
  - every option a message names in library terms (hws_*_opts.member, hws_event_request.member,
    function()) is in option_names[], and every entry there is used by some message.
Exit 1 with each violation named.
"""
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
# other programs' options a message may quote (a shell command to run, a file's origin)
ALLOWED = ["ulimit -n", "ulimit -l", "mount -o", "mount -t", "grep -i", "perf record -z",
           "docker: --cap-add", "-apple-system"]
OPTION = re.compile(r"(?<![\w%.+-])(--[a-z][a-z-]+|-[A-Za-z])(?![\w-])")
LIB_NAME = re.compile(r"hws_\w+_opts\.[\w/]+|hws_event_request\.[\w/]+|hws_\w+\(\)(?: @\w+)?")
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# literals joined by the compiler: only blanks or PRI* macros between them
JOIN = re.compile(r'"\s*(?:PRI\w+\s*)?"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# files whose strings are no messages, and why
SKIP = {
    "core/analysis/c2c_html.c": "the HTML page's CSS and JavaScript",
}
# literals that are only a list of options: the cli column of the config file's key tables
# (hwsample -c FILE: each [run] key stands for a command-line option, for the CLI's help)
OPTION_LIST_OK = {"core/record/config.c"}
OPTION_LIST = re.compile(r"^-[-\w ,/]*$")


def literals(path):
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), open(path).read())
    text = JOIN.sub("", text)
    for m in STRING.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


bad = []
used = set()
for base in ("core", "backends"):
    for d, _, files in os.walk(os.path.join(top, base)):
        rel_d = os.path.relpath(d, top)
        if rel_d.startswith(os.path.join("core", "cli")):
            continue
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, top)
            if rel in SKIP:
                continue
            for line, s in literals(path):
                if rel in OPTION_LIST_OK and OPTION_LIST.match(s):
                    continue
                clean = s
                for a in ALLOWED:
                    clean = clean.replace(a, "")
                for m in OPTION.finditer(clean):
                    bad.append(f"{rel}:{line}: quotes the command-line option '{m.group(1)}': "
                               f"name the library's option instead: \"{s[:100]}\"")
                used.update(LIB_NAME.findall(s))

main_c = open(os.path.join(top, "core", "cli", "main.c")).read()
table = re.search(r"option_names\[\] = \{(.*?)\n\};", main_c, re.S)
mapped = set(re.findall(r'\{ ?"([^"]+)", "', table.group(1))) if table else set()
if not table:
    bad.append("core/cli/main.c: no option_names[] table")
for name in sorted(used - mapped):
    bad.append(f"a library message names '{name}', which core/cli/main.c option_names[] "
               "does not map to a command-line option")
for name in sorted(mapped - used):
    bad.append(f"core/cli/main.c option_names[] maps '{name}', which no library message uses")

for b in bad:
    print("FAIL:", b)
print(f"lib_messages: {len(bad)} violations")
sys.exit(1 if bad else 0)
