# ptxkit_whole_archive_interface(NAME ARCHIVE EXPORT_NAME)
#
# Kernels and CLI commands register themselves with static initializers, and a linker drops the
# archive members nothing references, registrations included. NAME becomes an INTERFACE target
# that links ARCHIVE whole (--whole-archive), so every consumer of NAME gets every registration,
# in this build tree and from the installed package (where ARCHIVE is ptxkit::ARCHIVE_EXPORT_NAME).
function(ptxkit_whole_archive_interface name archive archive_export_name)
  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE
    "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${archive}>>"
    "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,ptxkit::${archive_export_name}>>")
  set_target_properties(${archive} PROPERTIES EXPORT_NAME ${archive_export_name})
endfunction()
