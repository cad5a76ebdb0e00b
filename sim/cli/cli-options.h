/* cli-options.h — GOption, strictly. GLib's parser lets a second `--graph B` silently replace `--graph A`,
 * reads `--budget nan` as a number, and cannot tell `--align 0` from no --align. Wrapping the command's
 * entries here makes every single-valued option (string, file name, 64-bit integer, double) a callback that
 * refuses a second occurrence, a number that is not whole (integers) or not finite (doubles), and records
 * which options were given, so a check can refuse an explicit value instead of taking it for "unset". */
#ifndef SIM_CLI_OPTIONS_H
#define SIM_CLI_OPTIONS_H

#include <glib.h>

typedef struct CliStrict CliStrict;

/* Rewrites the single-valued entries of `entries` (terminated by a NULL long_name) in place and returns
 * the main group to parse them with (owned by the context once set as its main group). */
CliStrict *cli_strict_new(GOptionEntry *entries, GOptionGroup **main_group);
/* Whether --NAME was on the command line. */
gboolean cli_strict_given(const CliStrict *s, const char *long_name);
void cli_strict_free(CliStrict *s);

#endif
