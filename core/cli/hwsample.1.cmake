# SPDX-License-Identifier: MIT
# hwsample(1) from core/cli/hwsample.1.rst, built when rst2man is installed (Debian package
# python3-docutils), plus the install rules for the man page and the bash completion.
# Include it from core/CMakeLists.txt:  include(cli/hwsample.1.cmake)
find_program(HWS_RST2MAN NAMES rst2man rst2man.py)
set(HWS_MAN_SRC ${CMAKE_CURRENT_LIST_DIR}/hwsample.1.rst)
set(HWS_MAN_OUT ${CMAKE_BINARY_DIR}/man/hwsample.1)
if(HWS_RST2MAN)
  add_custom_command(OUTPUT ${HWS_MAN_OUT}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${HWS_RST2MAN} --halt=warning ${HWS_MAN_SRC} ${HWS_MAN_OUT}
    DEPENDS ${HWS_MAN_SRC}
    COMMENT "Generating hwsample.1"
    VERBATIM)
  add_custom_target(hwsample_man ALL DEPENDS ${HWS_MAN_OUT})
  install(FILES ${HWS_MAN_OUT} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "rst2man not found (Debian: python3-docutils): the man page is not built")
endif()
install(FILES ${CMAKE_SOURCE_DIR}/scripts/hwsample-completion.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hwsample)
