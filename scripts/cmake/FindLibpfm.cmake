# SPDX-License-Identifier: MIT
# Find libpfm4 (the upstream tree ships no pkg-config file). Defines Libpfm::Libpfm and
# Libpfm::Headers (its headers only: the intel_pebs backend opens the library at run time).
find_path(LIBPFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h)
find_library(LIBPFM_LIBRARY NAMES pfm)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libpfm REQUIRED_VARS LIBPFM_LIBRARY LIBPFM_INCLUDE_DIR)
if(Libpfm_FOUND AND NOT TARGET Libpfm::Libpfm)
  add_library(Libpfm::Libpfm UNKNOWN IMPORTED)
  set_target_properties(Libpfm::Libpfm PROPERTIES
    IMPORTED_LOCATION "${LIBPFM_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBPFM_INCLUDE_DIR}")
  add_library(Libpfm::Headers INTERFACE IMPORTED)
  set_target_properties(Libpfm::Headers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${LIBPFM_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBPFM_INCLUDE_DIR LIBPFM_LIBRARY)
