/* SPDX-License-Identifier: MIT */
/*
 * core/kernel/hostinfo.c's settings as the layers above read them (the public side is
 * include/hwsample/host.h).
 */
#ifndef HWS_CORE_KERNEL_HOSTINFO_H
#define HWS_CORE_KERNEL_HOSTINFO_H

#include <stdbool.h>

/* hws_host_opts.no_simd as last configured */
bool hws__host_no_simd(void);

#endif
