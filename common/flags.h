/* Flags from one table. A command that takes flags describes each one as a
 * row of a2_flag - its name, value, kind, default, help and the field it
 * sets - and this parser reads argv by the rows; `--help` and the flag
 * tables of docs/cli.md (a2a3sim help --markdown COMMAND) are printed from
 * the same rows. Cross-flag rules ("--param only with --program") are the
 * command's, checked after parsing with a2_flags_given/first/last.
 *
 * How argv is read (docs/cli.md, "How flags are read"): `--name VALUE`,
 * `--name=VALUE`, `-x VALUE` and `-xVALUE`; a name is matched whole (no
 * abbreviations); a VALUE may start with '-' (`--size -4` is a bad size,
 * not a missing one); flags and arguments mix in any order; `--` ends the
 * flags; `-h` and `--help` print the help. Errors are one line on stderr
 * naming the flag (common/cmd_err.h), exit status 2. */
#ifndef A2_FLAGS_H
#define A2_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  A2_FLAG_SECTION, /* not a flag: a heading in --help and docs (name = the title, help = a note) */
  A2_FLAG_BOOL,    /* no value: sets a bool to true */
  A2_FLAG_STRING,  /* the value as given: a const char * (pointing into argv) */
  A2_FLAG_UINT,    /* an integer in lo..hi: an unsigned */
  A2_FLAG_U64,     /* an integer in lo..hi: a uint64_t */
  A2_FLAG_SIZE,    /* bytes, with a unit or not (4KiB, 1MB, 256), in lo..hi: a uint64_t */
  A2_FLAG_TIME,    /* a time with a unit (10ms; bare numbers are ps) in lo..hi: a uint64_t of ps */
  A2_FLAG_CHOICE,  /* one of choices[]: its index, an int */
  A2_FLAG_CUSTOM,  /* set() reads the value (parsed lists, NAME=VALUE pairs) */
  A2_FLAG_LIST,    /* the value as given, appended to the const char *[hi] at off, whose
                      count (a size_t) is at count_off; more than hi: an error */
  A2_FLAG_ALIAS    /* a deprecated name of the row named alias_of: warns once, then is it */
} a2_flag_kind;

typedef struct a2_flag a2_flag;

/* One flag (or one section heading). Rows are written with designated
 * initialisers; what a kind does not use stays 0. */
struct a2_flag {
  a2_flag_kind kind;
  const char *name;   /* "--size" (a section: its title) */
  const char *letter; /* "-d", or NULL; errors name a flag by it when it has one */
  const char *arg;    /* the value's placeholder ("BYTES"); NULL: takes no value */
  const char *help;   /* one paragraph, for --help and docs/cli.md; `code` marks are
                         printed plain by --help */
  const char *doc;    /* more, for docs/cli.md only (Markdown); NULL: none */
  const char *def;    /* the default, as the user would write it (--help, docs); NULL: none */
  const char *type;   /* the docs' value column; NULL: said by the kind and range */
  size_t off;         /* offsetof the field it sets in the command's options */
  size_t count_off;   /* LIST: offsetof the count of values taken */
  uint64_t lo, hi;    /* UINT, U64, SIZE, TIME: the range (hi 0: no upper bound); LIST:
                         hi is the most values */
  const char *const *choices; /* CHOICE: the names, NULL-terminated, indexed by value */
  /* CUSTOM: read `value` into opts; 0, or an exit status after printing the error */
  int (*set)(const a2_flag *f, const char *value, void *opts);
  const char *bad;      /* UINT..TIME: the error for a value it refuses, before ", got 'V'";
                           NULL: the kind's ("expected an integer in 1..1024") */
  const char *twice;    /* the error when given twice; NULL: may repeat (the last wins, or
                           set() collects each) */
  const char *alias_of; /* ALIAS: the name of the row it stands for ("--program") */
  unsigned cmds;        /* bit i: the table's command i takes it; 0: every command */
  unsigned group;       /* bits of the command's own, for its checks (a2_flags_first) */
  bool repeat;          /* repeatable (set() collects each): said in --help and docs */
};

/* A command reading a table (bit i of a row's cmds is cmds[i]). The first
 * is the table's main command: a flag it does not take is "only for" the
 * others; a flag another command does not take is "not for" that one. */
typedef struct {
  const char *name;  /* "run", or "config check": a2a3sim NAME */
  int max_args;      /* arguments besides the flags (FILE.csv); more are an error;
                        A2_FLAGS_ANY: any number */
  const char *usage; /* "usage: a2a3sim run ...\n", printed as it is */
  /* Paragraphs after the usage and after the flags (NULL: none), wrapped
   * by --help: a blank line ends a paragraph, a single newline is a space. */
  const char *about;
  const char *after;
} a2_flag_cmd;

typedef struct {
  const a2_flag *rows;
  size_t nrows;
  const a2_flag_cmd *cmds;
  size_t ncmds;
} a2_flag_table;

#define A2_FLAGS_MAX 72   /* rows of one table */
#define A2_FLAGS_ANY (-1) /* max_args: any number of arguments */

/* What a parse saw: each row's first and last place in argv (0: not
 * given), and the arguments that are not flags, in the order given. */
typedef struct {
  const a2_flag_table *table;
  int first[A2_FLAGS_MAX], last[A2_FLAGS_MAX];
  char **args; /* the end of argv, where the parse moved them */
  int nargs;
} a2_flags_seen;

/* Read argv[1..argc) of command `cmd` (an index into t->cmds) into opts,
 * which holds its defaults already. As GNU getopt does, the arguments that
 * are not flags are moved to the end of argv, in order (seen->args).
 * Returns 0, -1 after printing --help (stdout), or an exit status after
 * printing the error. */
int a2_flags_parse(const a2_flag_table *t, size_t cmd, int argc, char **argv, void *opts,
                   a2_flags_seen *seen);

/* Was the flag named `name` ("--size", or a letter "-d") given? */
bool a2_flags_given(const a2_flags_seen *s, const char *name);
/* The flag of `group` (a bit of the rows' group) given first / last, by the
 * name errors use ("-d", "--m"); NULL when none was. */
const char *a2_flags_first(const a2_flags_seen *s, unsigned group);
const char *a2_flags_last(const a2_flags_seen *s, unsigned group);
/* The name errors use for f: its letter if it has one, else its name. */
const char *a2_flag_id(const a2_flag *f);

/* `a2a3sim CMD --help`: the usage, the about text, the flags the command
 * takes by section (wrapped to 80 columns), then the after text. */
void a2_flags_help(const a2_flag_table *t, size_t cmd, FILE *out);
/* The table as docs/cli.md holds it: the commands' usage lines in a code
 * block, then one Markdown table per section (flag, value, default, the
 * commands that take it when there are several, meaning = help + doc). */
void a2_flags_markdown(const a2_flag_table *t, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
