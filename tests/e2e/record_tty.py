# SPDX-License-Identifier: MIT
"""Drive an interactive bash on a pseudo-terminal, as a user at a terminal would, for
record_tty.sh. Usage: record_tty.py HWSAMPLE DIR SCENARIO. Prints the terminal's output
(carriage returns and escape sequences removed) for the shell script to check."""
import os
import pty
import re
import select
import sys
import time

H, DIR, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]

pid, fd = pty.fork()
if pid == 0:
    os.environ["PS1"] = "$ "
    os.environ["TERM"] = "dumb"
    os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])

out = b""


def rd(secs, until=None):
    """Read for up to secs seconds, or until the output so far matches until."""
    global out
    end = time.time() + secs
    while time.time() < end:
        if until and re.search(until, out.decode(errors="replace")):
            return True
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return bool(until and re.search(until, out.decode(errors="replace")))


def send(s):
    os.write(fd, s.encode())


def stat(p):
    """state and parent of process p"""
    with open("/proc/%d/stat" % p) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def print_states(when):
    """the states of the workload's leader and of hwsample (its parent), for the script"""
    with open(DIR + "/gc.pids") as f:
        leader = int(f.read().split()[1])
    state, parent = stat(leader)
    sys.stderr.write("%s: leader %s hwsample %s\n" % (when, state, stat(parent)[0]))


rd(2, r"\$ $")
send("bind 'set enable-bracketed-paste off' 2>/dev/null; cd " + DIR + "\n")
rd(2, r"\$ $")
rec = H + " --no-status -b sw -e cpu-clock -o " + DIR + "/tty.data -- "

if SCENARIO == "ctrl-c":
    # Ctrl-C reaches the workload and its children; hwsample finishes the file; 130
    send(rec + "sh gc.sh\n")
    rd(20, r"grandchild \d+")
    time.sleep(0.5)
    send("\x03")
    rd(20, r"workload killed by signal")
    send("echo rc=$?\n")
    rd(10, r"rc=\d+")
elif SCENARIO == "ctrl-z":
    # Ctrl-Z stops the workload and hwsample (bash says Stopped); fg continues both; Ctrl-C
    # then ends it
    send(rec + "sh gc.sh\n")
    rd(20, r"grandchild \d+")
    time.sleep(0.5)
    send("\x1a")
    rd(10, r"Stopped")
    time.sleep(0.5)
    print_states("stopped")
    send("fg\n")
    rd(1)
    print_states("fg")
    send("\x03")
    rd(20, r"workload killed by signal")
    send("echo rc=$?\n")
    rd(10, r"rc=\d+")
elif SCENARIO == "read":
    # the workload reads the terminal
    send(rec + "sh -c 'read x; echo got:$x; exit 5'\n")
    rd(2)
    send("hello\n")
    rd(20, r"workload exited")
    send("echo rc=$?\n")
    rd(10, r"rc=\d+")
elif SCENARIO == "loop":
    # Ctrl-C in a script's loop stops the script, as it does with perf record
    send("bash -c 'for i in 1 2 3; do echo iter:$i; " + rec +
         "sh -c \"echo running:\\$\\$; exec sleep 3\" 2>/dev/null; done; echo loop-done'\n")
    rd(20, r"running:\d+")
    time.sleep(0.5)
    send("\x03")
    rd(8, r"loop-done|iter:2")
    send("echo rc=$?\n")
    rd(10, r"rc=\d+")
send("exit\n")
rd(2)
try:
    os.kill(pid, 9)
except OSError:
    pass
text = out.decode(errors="replace").replace("\r", "")
text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
sys.stdout.write(text)
