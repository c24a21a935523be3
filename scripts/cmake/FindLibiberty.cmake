# SPDX-License-Identifier: MIT
# Find libiberty's demangler (Debian: libiberty-dev, a static archive built position
# independent; no pkg-config file). Defines Libiberty::Libiberty.
find_path(LIBIBERTY_INCLUDE_DIR demangle.h PATH_SUFFIXES libiberty)
find_library(LIBIBERTY_LIBRARY NAMES libiberty.a iberty)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libiberty REQUIRED_VARS LIBIBERTY_LIBRARY LIBIBERTY_INCLUDE_DIR)
if(Libiberty_FOUND AND NOT TARGET Libiberty::Libiberty)
  add_library(Libiberty::Libiberty UNKNOWN IMPORTED)
  set_target_properties(Libiberty::Libiberty PROPERTIES
    IMPORTED_LOCATION "${LIBIBERTY_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBIBERTY_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBIBERTY_INCLUDE_DIR LIBIBERTY_LIBRARY)
