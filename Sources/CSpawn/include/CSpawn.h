// posix_spawn's "close every descriptor from N" file action (glibc 2.34+), which Swift's Glibc module does not export.
#include <spawn.h>

/// Adds to `actions` the closing of every descriptor from `from` up in the child. Returns 0 or an errno value.
int hearth_spawn_close_from(posix_spawn_file_actions_t *actions, int from);
