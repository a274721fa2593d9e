/* SPDX-License-Identifier: GPL-2.0 */
/* tprof-read: C++ names as people read them (libstdc++'s demangler). */
#ifndef _TPROF_DEMANGLE_H
#define _TPROF_DEMANGLE_H

/*
 * The demangled name of an Itanium-ABI symbol ("_ZNK3geo6Circle4areaEv" ->
 * "geo::Circle::area() const"), malloc'd; NULL if name is not one (C, Go) or
 * does not demangle.
 */
char *demangle(const char *name);

#endif /* _TPROF_DEMANGLE_H */
