/* The overview, completions and manual page of a command table. See
 * cmd/command_docs.h. */
#include "cmd/command_docs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

void ms_help_flags_of(const char *help, ms_help_flags *f) {
    size_t len = 0;
    f->n = 0;
    for (const char *p = strstr(help, "--"); p && f->n < 256; p = strstr(p, "--")) {
        size_t k = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
        bool seen = false;
        for (size_t i = 0; i < f->n && !seen; i++) seen = strlen(f->v[i]) == k && strncmp(f->v[i], p, k) == 0;
        if (k > 2 && p[k - 1] != '-' && !seen && len + k + 1 <= sizeof f->words) {
            memcpy(f->words + len, p, k);
            f->words[len + k] = '\0';
            f->v[f->n++] = f->words + len;
            len += k + 1;
        }
        p += k;
    }
}

char *ms_command_overview(const ms_command *c, size_t n) {
    ms_buf b = {0};
    ms_buf_puts(&b, "usage: moonsched [COMMAND] [FLAGS]\n\n");
    for (size_t i = 0; i < n; i++) ms_buf_printf(&b, "  %-12s%s\n", c[i].name, c[i].summary);
    ms_buf_puts(&b, "\nRun 'moonsched COMMAND --help' for a command's flags; kube-scheduler's\n"
                    "flags follow (run's).\n\n");
    return ms_buf_take(&b);
}

/* The help's long flags, space-separated, then suffix. */
static void print_flags(FILE *out, const char *help, const char *suffix) {
    ms_help_flags f;
    ms_help_flags_of(help ? help : "", &f);
    for (size_t i = 0; i < f.n; i++) fprintf(out, "%s%s", i ? " " : "", f.v[i]);
    fputs(suffix, out);
}

void ms_completion_bash(FILE *out, const ms_command *c, size_t n) {
    fputs("_moonsched() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} flags\n"
          "    if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"",
          out);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s ", c[i].name);
    fputs("help\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    case $cmd in\n",
          out);
    const char *run = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(c[i].name, "run") == 0) run = c[i].help;
        /* completion's words are its shells, below */
        if (!c[i].help || strcmp(c[i].name, "completion") == 0) continue;
        fprintf(out, "    %s) flags=\"", c[i].name);
        print_flags(out, c[i].help, "\";;\n");
    }
    fputs("    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return;;\n"
          "    *) flags=\"",
          out);
    print_flags(out, run, "\";;\n");
    fputs("    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$flags --help\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -F _moonsched moonsched\n",
          out);
}

void ms_completion_fish(FILE *out, const ms_command *c, size_t n) {
    fputs("complete -c moonsched -n __fish_use_subcommand -f -a '", out);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s ", c[i].name);
    fputs("help'\n", out);
    for (size_t i = 0; i < n; i++) {
        ms_help_flags f;
        ms_help_flags_of(c[i].help ? c[i].help : "", &f);
        for (size_t k = 0; k < f.n; k++)
            fprintf(out, "complete -c moonsched -n '__fish_seen_subcommand_from %s' -l %s\n", c[i].name,
                    f.v[k] + 2);
    }
    fputs("complete -c moonsched -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'\n", out);
}

/* Help text as roff: verbatim lines, with what roff would read as
 * requests or escapes neutralised. */
static void roff_verbatim(FILE *out, const char *text) {
    fputs(".nf\n", out);
    bool line_start = true;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\'')) fputs("\\&", out);
        if (*p == '\\') fputs("\\e", out);
        else if (*p == '-') fputs("\\-", out);
        else fputc(*p, out);
        line_start = *p == '\n';
    }
    fputs(".fi\n", out);
}

void ms_man_page(FILE *out, const char *version, const ms_command *c, size_t n) {
    fprintf(out,
            ".TH MOONSCHED 1 \"\" \"moonsched %s%s\" \"User Commands\"\n"
            ".SH NAME\nmoonsched \\- Kubernetes pod scheduler with Lua policies\n"
            ".SH SYNOPSIS\n",
            version[0] == 'v' ? "" : "v", version);
    char *overview = ms_command_overview(c, n);
    roff_verbatim(out, overview ? overview : "");
    free(overview);
    fputs(".SH COMMANDS\n", out);
    for (size_t i = 0; i < n; i++) {
        if (!c[i].help) continue;
        fprintf(out, ".SS %s\n", c[i].name);
        roff_verbatim(out, c[i].help);
    }
    fputs(".SH EXIT STATUS\n0 success; 1 an internal failure; 2 a usage error, a bad input file, or what\n"
          "this build cannot do.\n"
          ".SH SEE ALSO\nkube-scheduler(1), kubectl(1); the docs/ directory of the source tree.\n",
          out);
}
