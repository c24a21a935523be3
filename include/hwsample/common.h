/* SPDX-License-Identifier: MIT */
/*
 * What every public header shares: the export macro and the options-struct convention.
 *
 * Options structs (struct hws_*_opts) grow safely, as libbpf's do:
 *  - the first member is `size_t sz`, the size of the struct as the caller was compiled;
 *  - callers declare them with HWS_OPTS(), which zeroes the whole struct (padding too) and
 *    sets sz, then the named members: HWS_OPTS(hws_decoder_opts, o, .srcline = true);
 *  - a function given NULL uses the defaults (every member zero); a struct with sz == 0 (or
 *    smaller than sz itself) is a caller's mistake: -EINVAL, as for any invalid argument;
 *  - a caller built against a newer, larger struct is accepted when every byte past the
 *    library's own struct is zero (members the library does not know stay unset), else the
 *    call fails with -EINVAL and a warning naming the struct: nothing is silently ignored.
 */
#ifndef HWSAMPLE_COMMON_H
#define HWSAMPLE_COMMON_H

#include <stddef.h>
#include <string.h>

#ifndef HWS_API
#define HWS_API __attribute__((visibility("default")))
#endif

/* Declare and fill an options struct: HWS_OPTS(hws_session_opts, so, .system_wide = true) */
#define HWS_OPTS(TYPE, NAME, ...)                                                                  \
	struct TYPE NAME = ({                                                                      \
		memset(&NAME, 0, sizeof(struct TYPE));                                             \
		(struct TYPE){.sz = sizeof(struct TYPE), __VA_ARGS__};                             \
	})

#endif
