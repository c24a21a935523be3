/* SPDX-License-Identifier: MIT */
/*
 * The hwsample program. main.c dispatches to one cmd_<name>() per subcommand, each in its
 * own file (cmd_record.c, cmd_dump.c, ...). Subcommands are weak references so the CLI
 * builds while a subcommand is still being written.
 *
 * Exit codes (documented in --help and the man page):
 *   0 success, 1 runtime error (I/O, kernel refused, corrupt file), 2 usage error
 *   (bad option, unknown control, bad config), 3 not supported here (no PMU, kernel too
 *   old), 4 permission denied.
 */
#ifndef HWS_CLI_H
#define HWS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <getopt.h>

#include <hwsample/filter.h>
#include <hwsample/registry.h>

enum {
	HWS_EXIT_OK = 0,
	HWS_EXIT_ERROR = 1,
	HWS_EXIT_USAGE = 2,
	HWS_EXIT_UNSUPPORTED = 3,
	HWS_EXIT_PERM = 4,
};

struct hws_cli {
	const char *backend_dir; /* --backend-dir */
	int verbose;		 /* -v count */
	struct hws_registry *reg;
	unsigned int stdio_closed; /* bit n: fd n was closed at start (now /dev/null) */
};

/* Load backends once (dlopen, or static in hwsample-static). Prints the error and returns
 * NULL on failure. */
struct hws_registry *hws_cli__registry(struct hws_cli *cli);

/* Map an error code to the exit code above. */
int hws_cli__exit_code(int err);

/* @path of option @opt of command @cmd can be opened for reading and is not a directory;
 * else prints "hwsample CMD: OPT PATH: reason" and returns -errno */
int hws_cli__check_input(const char *cmd, const char *opt, const char *path);

/* @fn runs before each library message is printed (the record status line erases itself);
 * NULL: nothing */
void hws_cli__set_before_message(void (*fn)(void));

struct hws_decoder;

/* -e @event (NULL: no -e) of command @cmd names an event of the input @path as read by @d
 * so far (hws_decoder__event_name(), the names perf evlist shows): true; else prints
 * "hwsample CMD: -e EVENT: no such event in PATH; its events: A, B" and returns false.
 * Files know their events when opened, pipes once they have been read. */
bool hws_cli__event_known(const char *cmd, const char *path, const struct hws_decoder *d,
			  const char *event);

struct hws_perf_reader;
struct hws_decoder;

/* hws_perf_reader__open(@path) ("-": stdin) for command @cmd; NULL with the message printed
 * ("hwsample CMD: PATH: reason") and *@exit_code set: 2 for a directory, else 1 */
struct hws_perf_reader *hws_cli__open_input(const char *cmd, const char *path, int *exit_code);

/* After decoding @r with @d: if the file is unfinished (hws_perf_reader__unfinished()),
 * say so on stderr ("hwsample dump: x.data is unfinished (data size 0: ...): 12 samples
 * recovered up to byte 4096") and return true: the command then exits 1. */
bool hws_cli__unfinished(const char *cmd, const char *path, const struct hws_perf_reader *r,
			 const struct hws_decoder *d);

/* perf's build-id cache as perf finds it: $PERF_BUILDID_DIR, else $HOME/.debug; NULL: the
 * library's default */
const char *hws_cli__buildid_dir(void);

struct hws_decoder_opts;
/* What the environment says for decoding: the build-id cache (hws_cli__buildid_dir()) and
 * HWS_DECODE_THREADS=1 (read ahead in a second thread) */
void hws_cli__decoder_env(struct hws_decoder_opts *o);

/* KERNEL_VERSION(a,b,c) of the running kernel, or of $HWS_KERNEL_VERSION (tests fake older
 * kernels); @buf (may be NULL) gets the release text and where it came from */
uint32_t hws_cli__kernel_version(char *buf, size_t len);

/* /proc/sys/kernel/@name as an integer, @dflt if it cannot be read */
int hws_cli__sysctl_int(const char *name, int dflt);

/* environment variable @name is set to "1" */
bool hws_cli__env_on(const char *name);

/* A library or backend message with the options it names in library terms replaced by
 * this program's ("hws_session_opts.mmap_pages" -> "-m"); @msg itself when it names none.
 * The text lives until the next call in this thread. */
const char *hws_cli__lib_text(const char *msg);

/* @s (a name from a file, the system or the command line) as it may be printed in a message
 * or a text line: control characters and bytes that are not well-formed UTF-8 as \xNN
 * (hws_strbuf__add_text_str()), @s itself when it has none (output for normal names does not
 * change). The text lives until 8 more calls in this thread. */
const char *hws_cli__text(const char *s);
/* The same for a message of several lines (library errors): '\n' and '\t' kept */
const char *hws_cli__text_lines(const char *s);
/* @text (NULL: nothing) to @f as hws_strbuf__add_text_lines() shows it: lines of names and
 * config text without control characters but '\n' and '\t' */
void hws_cli__write_text(FILE *f, const char *text);

int cmd_record(struct hws_cli *cli, int argc, char **argv) __attribute__((weak));
int cmd_dump(struct hws_cli *cli, int argc, char **argv) __attribute__((weak));
int cmd_report(struct hws_cli *cli, int argc, char **argv) __attribute__((weak));
int cmd_list(struct hws_cli *cli, int argc, char **argv) __attribute__((weak));
int cmd_c2c(struct hws_cli *cli, int argc, char **argv) __attribute__((weak));
int cmd_convert(struct hws_cli *cli, int argc, char **argv) __attribute__((weak));

/* core/cli/filter_args.c: perf's filter options (--pid, --tid, --comms, --dsos, --symbols,
 * -C/--cpu, --time), for dump, report and c2c. Option values are HWS_CLI_OPT_*. */
enum {
	HWS_CLI_OPT_PID = 0x1000,
	HWS_CLI_OPT_TID,
	HWS_CLI_OPT_COMM,
	HWS_CLI_OPT_DSO,
	HWS_CLI_OPT_SYM,
	HWS_CLI_OPT_TIME,
};
extern const struct option hws_cli_filter_options[]; /* ends with a NULL entry */
extern const char hws_cli_filter_usage[];
size_t hws_cli_filter_nr_options(void);
/* Take option @o (getopt_long's value) into @fo when it is a filter option. */
bool hws_cli__filter_opt(int o, const char *arg, struct hws_filter_opts *fo);
/* @own options (ending with a NULL entry) then the filter options into @out (@max entries) */
size_t hws_cli__with_filter_options(const struct option *own, struct option *out, size_t max);
struct hws_perf_reader;
/* The filter of @fo (*@out NULL when no filter option was given), percentages resolved with
 * the file's sample times. Prints what is wrong; returns an exit code. */
int hws_cli__filter_make(const char *cmd, struct hws_perf_reader *r, struct hws_filter_opts *fo,
			 struct hws_filter **out);

/* ---- objects_cli.c ---- */
struct hws_objects;
struct hws_strbuf;
struct hws_sample;
/* the allocation records of input @path (its feature, else PATH.objects/), NULL if none;
 * notes on stderr for records read from the directory, damaged or dropped */
struct hws_objects *hws_cli__objects(const char *cmd, const char *path,
				     const struct hws_perf_reader *r);
/* hws_output_opts.extra_json: "object" and "type" of a sample; @ctx is a struct
 * hws_cli_objects */
struct hws_datatypes;
struct hws_cli_objects {
	struct hws_objects *objects;
	struct hws_symbols *syms;
	struct hws_datatypes *types; /* NULL: no "type" */
};
int hws_cli__object_json(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb);

#endif
