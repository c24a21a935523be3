// SPDX-License-Identifier: MIT
/*
 * hwsample record: the workload and the signals (core/cli/record.h).
 *
 * The workload runs in its own process group (its pid), so that stopping it (--duration,
 * SIGINT/SIGTERM/SIGHUP to hwsample, an error, the end of the run) reaches its children
 * and grandchildren too: SIGTERM to the group, SIGKILL after STOP_GRACE_S seconds to
 * whatever is left of it. hwsample is its children's subreaper, so the orphans of the
 * workload are reaped here and "gone" means gone.
 *
 * Terminal: when hwsample runs in the foreground of its controlling terminal, the workload's
 * group is made the foreground group when it starts (as a shell does for a job), so that it
 * can read the terminal and Ctrl-C / Ctrl-\ reach it and its children; hwsample sees it end
 * and finishes the file. Ctrl-Z stops the workload's group: hwsample takes the terminal
 * back and stops its own group with SIGTSTP, as the shell expects of the job it started;
 * when continued, it gives the terminal back (if it has it) and continues the workload.
 * The terminal is taken back when the workload ends. A workload ended by Ctrl-C ends
 * hwsample with SIGINT, sent to hwsample's group as the terminal would have sent it, so
 * that a calling shell script stops as it does when Ctrl-C reaches it (bash waits for its
 * child and stops only if it got SIGINT too and the child died of it).
 *
 * The workload gets the signal dispositions hwsample started with (hwsample ignores SIGPIPE
 * and SIGTTOU, and catches others, while it records); in pipe mode (-o -) its stdout is
 * hwsample's stderr, as perf does, so nothing it prints can enter the stream.
 *
 * Invariants:
 *  - Signal handlers only set flags (record_done_sig ...); all work happens in the main loop
 *    of cmd_record.c.
 *  - The workload's process group does not outlive the run; its leader's status is kept in
 *    r->wstatus once r->child_done.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "record.h"

volatile sig_atomic_t record_done_sig, record_child_exited, record_snapshot_req, record_cont_req;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		record_child_exited = 1;
	else if (sig == SIGUSR2)
		record_snapshot_req = 1;
	else if (sig == SIGCONT)
		record_cont_req = 1;
	else
		record_done_sig = sig;
}

static const int handled_sigs[8] = {SIGINT,  SIGTERM, SIGHUP,  SIGCHLD,
				    SIGUSR2, SIGCONT, SIGPIPE, SIGTTOU};

void record__install_signals(struct record *r)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 8; i++)
		sigaction(handled_sigs[i], NULL, &r->saved_sa[i]);
	r->sa_saved = true;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r->saved_sa[2].sa_handler != SIG_IGN) /* nohup: hangups stay ignored */
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	/* a reader that goes away is an EPIPE to handle, not a silent death; writing to the
	 * terminal or taking it back while the workload has it must not stop us */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGTTOU, &sa, NULL);
}

void record__restore_signals(struct record *r)
{
	for (int i = 0; r->sa_saved && i < 8; i++)
		sigaction(handled_sigs[i], &r->saved_sa[i], NULL);
}

/* Our controlling terminal, if one of fds 0, 2, 1 is it. */
int workload__controlling_tty(void)
{
	static const int fds[3] = {STDIN_FILENO, STDERR_FILENO, STDOUT_FILENO};

	for (int i = 0; i < 3; i++)
		if (isatty(fds[i]) && tcgetsid(fds[i]) == getsid(0))
			return fds[i];
	return -1;
}

/* Give the terminal to the workload's group when our group has it (we are in the
 * foreground), and continue the group. */
void workload__resume(struct record *r)
{
	if (r->pgid <= 0)
		return;
	if (r->tty_fd >= 0 && tcgetpgrp(r->tty_fd) == getpgrp())
		tcsetpgrp(r->tty_fd, r->pgid);
	kill(-r->pgid, SIGCONT);
}

/* Take the terminal back from the workload's group. */
static void reclaim_tty(struct record *r)
{
	if (r->tty_fd >= 0 && r->pgid > 0 && tcgetpgrp(r->tty_fd) == r->pgid)
		tcsetpgrp(r->tty_fd, getpgrp());
}

/* Ctrl-Z stopped the workload: stop with it, so the shell sees its job stopped. */
static void job_stopped(struct record *r, int sig)
{
	if (sig != SIGTSTP || r->tty_fd < 0 || r->stopping)
		return; /* kill -STOP from elsewhere, SIGTTIN in the background: left alone */
	reclaim_tty(r);
	kill(0, SIGTSTP); /* returns once we are continued (fg or bg) */
	workload__resume(r);
}

/* Collect what happened to the workload's leader, and reap the orphans of its group that
 * came to us as their subreaper. */
void workload__reap(struct record *r)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (p != r->child || r->child_done)
			continue;
		if (WIFSTOPPED(st)) {
			job_stopped(r, WSTOPSIG(st));
			continue;
		}
		r->wstatus = st;
		r->child_done = true;
	}
}

/* Wait up to @secs for the workload's leader to end by itself. */
void workload__wait_leader(struct record *r, double secs)
{
	const struct timespec tick = {0, 1000 * 1000};
	double deadline = now_s() + secs;

	for (workload__reap(r); r->pgid > 0 && !r->child_done && now_s() < deadline;
	     workload__reap(r))
		nanosleep(&tick, NULL);
}

/* End the workload's process group and reap its leader (whose status is kept): SIGTERM
 * (and SIGCONT, for stopped members), then SIGKILL to what is left after STOP_GRACE_S.
 * Also when the leader already ended: its children must not outlive the run. */
void workload__stop(struct record *r)
{
	const struct timespec tick = {0, 10 * 1000 * 1000};
	double deadline;
	bool killed = false;

	if (r->cork_fd >= 0) { /* never started: it exits without exec */
		close(r->cork_fd);
		r->cork_fd = -1;
	}
	if (r->pgid <= 0)
		return;
	r->stopping = true;
	workload__reap(r);
	if (!r->child_done)
		r->killed_by_us = true;
	if (!kill(-r->pgid, SIGTERM)) {
		kill(-r->pgid, SIGCONT);
		if (r->child_done)
			r->leftovers = 1;
	}
	deadline = now_s() + STOP_GRACE_S;
	for (;;) {
		workload__reap(r);
		if (r->child_done && kill(-r->pgid, 0) && errno == ESRCH)
			break; /* nothing of the group is left */
		if (now_s() >= deadline) {
			if (killed)
				break; /* left to init (uninterruptible sleep?) */
			kill(-r->pgid, SIGKILL);
			killed = true;
			if (r->leftovers || r->child_done)
				r->leftovers = 2;
			deadline = now_s() + STOP_GRACE_S;
		}
		nanosleep(&tick, NULL);
	}
	if (!r->child_done && waitpid(r->child, &r->wstatus, 0) == r->child)
		r->child_done = true;
	reclaim_tty(r);
	r->pgid = 0;
	r->child = 0;
}

int workload__start(struct record *r, char *err, size_t errlen)
{
	int cork[2], status[2];
	pid_t parent = getpid();

	if (pipe2(cork, O_CLOEXEC) || pipe2(status, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	/* orphans of the workload come to us: reaped, and stopped with its group */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	r->child = fork();
	if (r->child < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -errno;
	}
	if (r->child == 0) {
		char c;
		int e;

		close(cork[1]);
		close(status[0]);
		record__restore_signals(r);
		setpgid(0, 0);
		/* hwsample killed outright: the workload does not run on unobserved */
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		if (getppid() != parent)
			_exit(127);
		/* pipe mode: what the workload prints goes to stderr, never into the stream */
		if (r->pipe_out && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		/* wait until the parent has opened the events */
		if (read(cork[0], &c, 1) != 1)
			_exit(127);
		execvp(r->argv[0], r->argv);
		e = errno;
		if (write(status[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(r->child, r->child); /* also here: kill(-pgid) works from now on */
	r->pgid = r->child;
	close(cork[0]);
	close(status[1]);
	r->cork_fd = cork[1];
	r->exec_status_fd = status[0];
	return 0;
}

int workload__go(struct record *r, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	/* in the foreground of a terminal: the workload's group takes it, as a shell's job */
	if (r->tty_fd >= 0 && tcgetpgrp(r->tty_fd) == getpgrp())
		r->tty_given = !tcsetpgrp(r->tty_fd, r->pgid);
	if (write(r->cork_fd, "x", 1) != 1) {
		snprintf(err, errlen, "cannot start the workload: %s", strerror(errno));
		return -errno;
	}
	close(r->cork_fd);
	r->cork_fd = -1;
	n = read(r->exec_status_fd, &e, sizeof(e));
	close(r->exec_status_fd);
	r->exec_status_fd = -1;
	if (n == sizeof(e)) {
		snprintf(err, errlen, "cannot run '%s': %s", r->argv[0], strerror(e));
		return -e;
	}
	return 0;
}

/* The exit status a shell gives a process that ended with @st (128+N for signal N). */
int workload__exit_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return HWS_EXIT_ERROR;
}

void workload__print_end(const struct record *r)
{
	int st = r->wstatus;

	if (WIFEXITED(st))
		fprintf(stderr, "  workload exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(stderr, "  workload killed by signal %d (%s)%s", WTERMSIG(st),
			strsignal(WTERMSIG(st)), WCOREDUMP(st) ? ", core dumped" : "");
	fprintf(stderr, "%s\n", r->killed_by_us ? ": hwsample stopped it" : "");
	if (r->leftovers)
		fprintf(stderr,
			"  processes the workload started were still running in its process "
			"group: hwsample stopped them (SIGTERM%s)\n",
			r->leftovers > 1 ? ", then SIGKILL" : "");
}

/* -o -: the stream needs a writable stdout (checked before anything is opened). */
int record__check_stdout(const struct hws_cli *cli)
{
	int fl = fcntl(STDOUT_FILENO, F_GETFL);

	if ((cli->stdio_closed & (1u << STDOUT_FILENO)) || fl < 0) {
		fprintf(stderr,
			"hwsample: -o -: standard output is closed, and pipe mode writes the "
			"perf.data stream there: connect it to a reader (| hwsample dump -i -) or "
			"a file, or give -o FILE\n");
		return -1;
	}
	if ((fl & O_ACCMODE) == O_RDONLY) {
		fprintf(stderr,
			"hwsample: -o -: standard output is open for reading only; pipe "
			"mode writes the perf.data stream there: redirect it to a reader or a "
			"file, or give -o FILE\n");
		return -1;
	}
	return 0;
}

/* -o -: its reader went away (a pipe whose read end is closed polls as POLLERR). */
bool record__stdout_reader_gone(void)
{
	struct pollfd p = {.fd = STDOUT_FILENO, .events = 0};

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}
