# Warnings and sanitizers applied to every ptxkit target.
#
# -Werror everywhere: a warning in a toolkit that checks other people's code is a bug of ours.
add_compile_options(-Wall -Wextra -Werror)

if(PTXKIT_SANITIZE)
  # ASan+UBSan for the sanitizer build that ./test.sh runs; UB aborts so ctest sees it.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
