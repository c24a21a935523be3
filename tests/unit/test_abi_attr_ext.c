// SPDX-License-Identifier: MIT
/*
 * config3/config4: struct hws_perf_event_attr (include/hwsample/abi.h) carries them at the
 * kernel's offsets whatever uapi header the build host has. Checked:
 *  - hws_event_desc__config() points at attr bytes 128 and 136; attr_size() is 128 with
 *    both zero, 136 with config3, 144 with config4;
 *  - the session passes that size to the real kernel: a cpu-clock event with config3 set
 *    opens on a 6.3+ kernel (software events ignore config3) and one with config4 set is
 *    refused by a kernel that lacks it with E2BIG, explained (the attr size the kernel knows,
 *    which controls to leave out); on a kernel with config4 it opens.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hwsample/backend.h>
#include <hwsample/session.h>

#include "tests.h"

static int open_with(uint64_t c3, uint64_t c4, char *err, size_t errlen)
{
	struct hws_session_opts o = {.sz = sizeof(o)};
	struct hws_event_desc d;
	struct hws_session *s;
	pid_t self = getpid();
	int rc;

	memset(&d, 0, sizeof(d));
	d.attr.type = PERF_TYPE_SOFTWARE;
	d.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	d.attr.sample_period = 1000000;
	d.attr.sample_type = PERF_SAMPLE_IP;
	d.group_leader = -1;
	snprintf(d.name, sizeof(d.name), "cpu-clock");
	snprintf(d.pmu, sizeof(d.pmu), "software");
	*hws_event_desc__config(&d, 3) = c3;
	*hws_event_desc__config(&d, 4) = c4;
	o.pids = &self;
	o.nr_pids = 1;
	o.per_thread = true;
	o.mmap_pages = 1;
	s = hws_session__new(&o);
	if (!s)
		return -ENOMEM;
	rc = hws_session__add_event(s, &d, "sw", 0);
	if (rc >= 0)
		rc = hws_session__prepare(s, err, errlen);
	if (rc >= 0)
		rc = hws_session__open(s, err, errlen);
	hws_session__delete(s);
	return rc;
}

int main(void)
{
	struct hws_event_desc d;
	struct utsname u;
	unsigned int maj = 0, min = 0;
	char err[512] = "";
	int rc;

	memset(&d, 0, sizeof(d));
	T_EQ_U64("config3 at attr byte 128",
		 (size_t)((char *)hws_event_desc__config(&d, 3) - (char *)&d.attr), 128);
	T_EQ_U64("config4 at attr byte 136",
		 (size_t)((char *)hws_event_desc__config(&d, 4) - (char *)&d.attr), 136);
	T_EQ_U64("size without them", hws_event_desc__attr_size(&d), 128);
	*hws_event_desc__config(&d, 3) = 5;
	T_EQ_U64("size with config3", hws_event_desc__attr_size(&d), 136);
	*hws_event_desc__config(&d, 4) = 1;
	T_EQ_U64("size with config4", hws_event_desc__attr_size(&d), 144);

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		TEST_SKIP("kernel version unknown");
	if (maj < 6 || (maj == 6 && min < 3))
		TEST_SKIP("kernel before 6.3: no config3 to open with");
	rc = open_with(0, 0, err, sizeof(err));
	if (rc == -EACCES || rc == -EPERM)
		TEST_SKIP("perf_event_open not permitted here");
	T_EQ_U64("plain cpu-clock opens", rc < 0, 0);
	rc = open_with(0x12, 0, err, sizeof(err));
	if (rc < 0)
		printf("config3: %s\n", err);
	T_EQ_U64("config3 (attr.size 136) accepted by a 6.3+ kernel", rc < 0, 0);
	err[0] = 0;
	rc = open_with(0, 0x30, err, sizeof(err));
	if (rc == -E2BIG) {
		printf("config4 refused as expected on %s: %s\n", u.release, err);
		__T("E2BIG explained with the kernel's attr size",
		    strstr(err, "perf_event_attr is 136 bytes") != NULL);
		__T("E2BIG says what to leave out", strstr(err, "leave out") != NULL);
	} else {
		T_EQ_U64("config4 (attr.size 144) accepted by this kernel", rc < 0, 0);
	}
	TEST_END();
}
