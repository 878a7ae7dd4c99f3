# ptxkit's CMake functions for projects that write their own kernels (docs/quickstart.md).
#
# ptxkit_add_kernel_tool(<name> SOURCES <src>... [LIBS <lib>...])
#   An executable with the whole `ptxkit` command set (list, gen, key, lint-keys, golden, verify,
#   validate, run, bench, embed, ...) over the built-in kernels plus the kernels that SOURCES and
#   LIBS register (PTXKIT_REGISTER_KERNEL). Put a kernel that an application also needs in an
#   OBJECT library and name it in LIBS of both (a static archive would drop the registration).
#
# ptxkit_generate_ptx(TARGET <target> KERNELS <kernel>[:<field>=<value>,...]...
#                     [ARCHS sm_XX...] [TOOL <tool>] [OUTPUT_DIR <dir>] [VERIFY] [VALIDATE]
#                     [LOC] [EMBED <header.h> [NAMESPACE <ns>]] [OUTPUT_VARIABLE <var>])
#   PTX generated at build time, one file per kernel instance and arch
#   (<dir>/<kernel>[.<field>-<value>...].<arch>.ptx; ARCHS defaults to sm_90, OUTPUT_DIR to
#   ${CMAKE_CURRENT_BINARY_DIR}/ptxkit/<target>), made before <target> is built and remade when
#   the tool (so the kernel sources), or the arguments change. TOOL is a target made by
#   ptxkit_add_kernel_tool (default: ptxkit itself). VERIFY fails the build on any error finding,
#   shown as `file:line:col: error: ...`; VALIDATE assembles each file with ptxas when ptxas is
#   found and says it skipped when not. A rejected file does not stay at its path (it is kept as
#   <file>.rejected), so nothing unverified is ever taken as up to date. EMBED writes a header
#   with every instance's PTX text, cache key and launch contract
#   (ptxkit::runtime::EmbeddedKernel, ptxkit/runtime/embedded.h) and adds its folder to
#   <target>'s include path. OUTPUT_VARIABLE receives the list of .ptx files.

set(_PTXKIT_GENERATE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(ptxkit_add_kernel_tool name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  if(NOT ARG_SOURCES AND NOT ARG_LIBS)
    message(FATAL_ERROR "ptxkit_add_kernel_tool(${name}): give the kernel sources (SOURCES) or "
                        "the libraries that hold them (LIBS)")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ptxkit::cli_main ptxkit::cli ptxkit::kernels ${ARG_LIBS})
  target_compile_features(${name} PRIVATE cxx_std_20)
endfunction()

# The tool's file and the target to depend on.
function(_ptxkit_tool tool out_exe out_dep)
  if(tool)
    if(NOT TARGET ${tool})
      message(FATAL_ERROR "ptxkit_generate_ptx: TOOL ${tool} is not a target (make it with "
                          "ptxkit_add_kernel_tool first)")
    endif()
    set(${out_exe} "$<TARGET_FILE:${tool}>" PARENT_SCOPE)
    set(${out_dep} ${tool} PARENT_SCOPE)
  elseif(TARGET ptxkit::ptxkit)
    set(${out_exe} "$<TARGET_FILE:ptxkit::ptxkit>" PARENT_SCOPE)
    set(${out_dep} ptxkit::ptxkit PARENT_SCOPE)
  else()
    message(FATAL_ERROR "ptxkit_generate_ptx: no ptxkit tool: call find_package(ptxkit) or "
                        "add_subdirectory(ptxkit) first, or name one with TOOL")
  endif()
endfunction()

function(ptxkit_generate_ptx)
  cmake_parse_arguments(ARG "VERIFY;VALIDATE;LOC"
    "TARGET;TOOL;OUTPUT_DIR;EMBED;NAMESPACE;OUTPUT_VARIABLE" "KERNELS;ARCHS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ptxkit_generate_ptx: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET OR NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "ptxkit_generate_ptx: TARGET must name an existing target "
                        "(got '${ARG_TARGET}')")
  endif()
  if(NOT ARG_KERNELS)
    message(FATAL_ERROR "ptxkit_generate_ptx(TARGET ${ARG_TARGET}): KERNELS is empty")
  endif()
  if(NOT ARG_ARCHS)
    set(ARG_ARCHS sm_90)
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/ptxkit/${ARG_TARGET})
  endif()
  if(NOT ARG_NAMESPACE)
    string(MAKE_C_IDENTIFIER "${ARG_TARGET}_ptx" ARG_NAMESPACE)
  endif()
  _ptxkit_tool("${ARG_TOOL}" exe dep)

  set(ptxas "")
  if(ARG_VALIDATE)
    find_program(PTXKIT_PTXAS ptxas HINTS ENV PTXAS /usr/local/cuda/bin)
    if(PTXKIT_PTXAS)
      set(ptxas ${PTXKIT_PTXAS})
    else()
      message(STATUS "ptxkit_generate_ptx(${ARG_TARGET}): ptxas not found (PTXAS, PATH, "
                     "/usr/local/cuda/bin): VALIDATE is skipped")
    endif()
  endif()

  set(outputs)
  set(embed_items)
  foreach(spec IN LISTS ARG_KERNELS)
    if(NOT spec MATCHES "^([A-Za-z_][A-Za-z0-9_]*)(:(.*))?$")
      message(FATAL_ERROR "ptxkit_generate_ptx: bad kernel '${spec}': expected "
                          "NAME[:FIELD=VALUE,...]")
    endif()
    set(kernel ${CMAKE_MATCH_1})
    set(fields "${CMAKE_MATCH_3}")
    set(stem ${kernel})
    set(set_args)
    if(NOT fields STREQUAL "")
      string(REPLACE "," ";" assignments "${fields}")
      foreach(a IN LISTS assignments)
        if(NOT a MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=([^=]+)$")
          message(FATAL_ERROR "ptxkit_generate_ptx: bad assignment '${a}' in '${spec}': "
                              "expected FIELD=VALUE")
        endif()
        set(field ${CMAKE_MATCH_1})
        string(REGEX REPLACE "[^A-Za-z0-9_.+-]" "_" value "${CMAKE_MATCH_2}")
        list(APPEND set_args --set ${a})
        string(APPEND stem ".${field}-${value}")
      endforeach()
    endif()
    foreach(arch IN LISTS ARG_ARCHS)
      set(out ${ARG_OUTPUT_DIR}/${stem}.${arch}.ptx)
      set(gen_args gen ${kernel} ${set_args} --target ${arch})
      if(ARG_LOC)
        list(APPEND gen_args --loc)
      endif()
      # One -D value: the step script splits it at '|' (no argument contains one).
      string(REPLACE ";" "|" gen_args_joined "${gen_args}")
      # Every argument that shapes the file, in a file rewritten only when one changes: the step
      # depends on it, so a changed check or tool reruns it with any generator (Makefiles do not
      # compare command lines as Ninja does).
      file(CONFIGURE OUTPUT ${out}.args
        CONTENT "${dep} ${gen_args_joined} verify=${ARG_VERIFY} validate=${ARG_VALIDATE} ptxas=${ptxas}\n")
      add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -DTOOL=${exe} "-DGEN_ARGS=${gen_args_joined}" -DOUTPUT=${out}
                -DARCH=${arch} -DVERIFY=${ARG_VERIFY} -DVALIDATE=${ARG_VALIDATE} -DPTXAS=${ptxas}
                -P ${_PTXKIT_GENERATE_DIR}/PtxkitGenerateStep.cmake
        DEPENDS ${dep} ${_PTXKIT_GENERATE_DIR}/PtxkitGenerateStep.cmake ${out}.args
        COMMENT "ptxkit: ${spec} for ${arch}"
        VERBATIM)
      list(APPEND outputs ${out})
      list(APPEND embed_items "${spec}@${arch}=${out}")
    endforeach()
  endforeach()
  target_sources(${ARG_TARGET} PRIVATE ${outputs})

  if(ARG_EMBED)
    cmake_path(ABSOLUTE_PATH ARG_EMBED BASE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    cmake_path(GET ARG_EMBED PARENT_PATH embed_dir)
    file(CONFIGURE OUTPUT ${ARG_EMBED}.args CONTENT "${dep} ${ARG_NAMESPACE} ${embed_items}\n")
    add_custom_command(OUTPUT ${ARG_EMBED}
      COMMAND ${exe} embed -o ${ARG_EMBED} --namespace ${ARG_NAMESPACE} ${embed_items}
      DEPENDS ${dep} ${outputs} ${ARG_EMBED}.args
      COMMENT "ptxkit: embedding ${ARG_TARGET}'s PTX in ${ARG_EMBED}"
      VERBATIM)
    target_sources(${ARG_TARGET} PRIVATE ${ARG_EMBED})
    target_include_directories(${ARG_TARGET} PRIVATE ${embed_dir})
  endif()
  if(ARG_OUTPUT_VARIABLE)
    set(${ARG_OUTPUT_VARIABLE} ${outputs} PARENT_SCOPE)
  endif()
endfunction()
