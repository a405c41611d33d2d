/* What the moonsched binary's command table says of itself: the
 * overview, the flags each help names, the shell completions and the
 * manual page. All are made from the table and the help texts, so that
 * none can name a command or a flag the others lack. */
#ifndef MOONSCHED_CMD_COMMAND_DOCS_H
#define MOONSCHED_CMD_COMMAND_DOCS_H

#include <stddef.h>
#include <stdio.h>

/* A command: its line in the overview, its help (--help, `help COMMAND`,
 * the flags its completions offer, its section of the manual page) and
 * its entry. */
typedef struct ms_command {
    const char *name, *summary;
    const char *help;              /* NULL: none of its own (version) */
    int (*main)(int argc, char **argv);
} ms_command;

/* The long flags a help text names, in order, each once: pointers into
 * words. */
typedef struct ms_help_flags {
    char words[4096];
    const char *v[256];
    size_t n;
} ms_help_flags;

void ms_help_flags_of(const char *help, ms_help_flags *f);

/* The overview: the commands with their summaries. The caller frees it;
 * NULL when out of memory. */
char *ms_command_overview(const ms_command *c, size_t n);

/* bash's completion script, which zsh reads through bashcompinit: the
 * first word completes to a command; then the command's flags, or the
 * "run" entry's when the first word is a flag; completion's words are its
 * shells. */
void ms_completion_bash(FILE *out, const ms_command *c, size_t n);
void ms_completion_fish(FILE *out, const ms_command *c, size_t n);

/* moonsched(1) as roff: the overview, then each command's help. version:
 * the build's ("0.1.0" or "v0.1.0"). */
void ms_man_page(FILE *out, const char *version, const ms_command *c, size_t n);

#endif
