// main.cpp: the entry point of `ptxkit` and of every tool made by ptxkit_add_kernel_tool() (the
// ptxkit_cli_main library holds this file, so such a tool needs no main of its own).
#include "tool.h"

int main(int argc, char** argv) {
  return ptxkit::cli::run_tool(argc, argv);
}
