// SPDX-License-Identifier: MIT
/*
 * core/symbols: C++ and Rust symbol names as people read them, through libiberty's
 * cplus_demangle() (binutils' and GCC's demangler, Debian's libiberty-dev), as perf does.
 *
 * Invariants:
 *  - a name is passed to the demangler whole, as perf passes it (the demangler itself
 *    tells mangled names from others: C++ Itanium "_Z...", Rust legacy "_ZN...17h<hash>E"
 *    with the hash dropped, Rust v0 "_R..."); what it cannot demangle stays as it was;
 *  - the style is perf's: by default no parameter list and no return type (DMGL_NO_OPTS,
 *    perf report / script without -v), with @params the parameters and cv-qualifiers
 *    (DMGL_PARAMS | DMGL_ANSI, perf with -v);
 *  - the result is malloc'ed (libiberty's allocation), freed by the caller.
 */
#include <stdlib.h>

#include <libiberty/demangle.h>

#include "symbols/symbols_int.h"

char *hws__demangle(const char *name, bool params)
{
	/* cheap filter: every name the demangler accepts in auto style starts with '_' */
	if (!name || name[0] != '_')
		return NULL;
	return cplus_demangle(name, params ? DMGL_PARAMS | DMGL_ANSI : DMGL_NO_OPTS);
}
