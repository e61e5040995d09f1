/* cli: the subcommands of the aiwolf binary. Each lives in cmd_<name>.c and
 * returns the process exit status: 0 success, 1 failure of the work itself
 * (an illegal log, an invalid utterance), 2 bad usage or unreadable input. */
#ifndef AW_CLI_H
#define AW_CLI_H

int cmd_play(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_protocol(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_connect(int argc, char **argv);
int cmd_connect_nlp(int argc, char **argv); /* connect --nlp: cmd_connect_nlp.c */
int cmd_serve(int argc, char **argv);
int cmd_contest(int argc, char **argv);
int cmd_new(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_view(int argc, char **argv);

#include <stddef.h>
#include <stdio.h>

/* `aiwolf connect` and `connect --nlp` (cmd_connect.c): the foot of their
 * --help, what is wrong being WHAT ("the AIWolf wire format"), and one
 * message for bad usage, "aiwolf connect: " fmt (with arg, escaped for the
 * terminal) " (" help ")"; returns 2. */
#define AW_CONNECT_FOOT(WHAT)                                                      \
    "\n"                                                                           \
    "Exit status: 0 when the server ended the session (or on Ctrl-C; another\n"   \
    "Ctrl-C while it stops changes nothing), 1 when the server could not be\n"    \
    "reached or sent what is not " WHAT ", 2 for bad usage or an\n"               \
    "agent file that does not load.\n"
int aw_connect_bad(const char *help, const char *fmt, const char *arg);

/* Does one file's work; returns 0 (fine), 1 (the work failed: an illegal
 * log) or 2 (unusable input). */
typedef int (*aw_cli_file_fn)(void *ud, const char *path, const char *text, size_t len);
/* Reads each of files[0..nfiles) ("-": standard input, named <stdin>) and
 * hands it to fn, inflated first when it starts with the gzip magic (up to
 * AW_GZLOG_MAX_LOG bytes); an unreadable file is reported as "aiwolf CMD:
 * cannot read ..." and a broken gzip file as "aiwolf CMD: PATH: REASON",
 * both with status 2. Returns the worst status. */
int aw_cli_each_file(const char *cmd, const char *const *files, int nfiles, aw_cli_file_fn fn, void *ud);

/* Prints one line (fmt without its newline, which is added) to out with
 * the whole text made safe for a terminal (aw_term_vfprintf): for every
 * message that names a path, a name or an error that came from input. */
void aw_cli_line(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether a file written only at the end of a run (--summary FILE) could
 * be written now: not a folder, its folder there and writable, the file
 * writable if it exists ("-" is standard output). 0, or -1 with why
 * (whylen bytes) saying what is wrong, so that a long run is refused
 * before its first game rather than failing after its last. */
int aw_cli_writable_later(const char *path, char *why, size_t whylen);

/* A rate for people (games/s): "-" before there is one, two significant
 * digits under 10 (0.5, 0.0012: never "0.0" for games that were played),
 * else one decimal. Writes buf (n bytes) and returns it. */
const char *aw_cli_rate(char *buf, size_t n, double rate);

#include <stdbool.h>

#include "settings.h"

/* check's and replay's --preset and --set. */
typedef struct aw_cli_rules {
    const char *preset;       /* --preset, or NULL: each log's rules file, else aiwolf */
    const char *const *sets;  /* --set NAME=VALUE, applied on top */
    int nsets;
} aw_cli_rules;

/* The rules to judge the log at path by: --preset when given, else the
 * log's rules file (runtime/log/logrules.h) when one applies, else the
 * aiwolf preset; then the --set options. Returns 0 with rules and, in
 * source, where they came from (for messages), or 2 having said why
 * ("aiwolf CMD: PATH: its rules: ..."). path "<stdin>" has no rules file. */
int aw_cli_log_rules(const char *cmd, const char *path, const aw_cli_rules *opt, aw_settings *rules, char *source,
                     size_t sourcelen);

/* For a log that failed under `failed` (whose rules came from source): the
 * first preset (aiwolf, seed2015, regulation; one whose rules are `failed`
 * left out) under which passes(ud, its rules) holds is printed as
 * "    hint: PASSED under --preset P (TRIED under SOURCE)"; nothing when
 * none. */
void aw_cli_preset_hint(const aw_settings *failed, bool (*passes)(void *ud, const aw_settings *rules), void *ud,
                        const char *passed, const char *tried, const char *source);

/* --http's "[HOST:]PORT" (play and serve): host (127.0.0.1 when not given,
 * at most hostlen - 1 bytes) and port (0-65535). -1 when malformed. */
int aw_cli_parse_http(const char *v, char *host, size_t hostlen, int *port);

#include <stdio.h>

/* `aiwolf play --profile`: the samples of one agent file's seats (merged),
 * the functions by their share of the VM instructions sampled, with
 * instructions per game (games: those played). */
struct aw_profile;
void aw_cli_print_profile(FILE *out, const char *entry, const struct aw_profile *p, int seats, long games);

/* cmd_play_stop.c: Ctrl-C under `play --http`. start: a thread that runs
 * fn(ud) each time aw_play_stopper_kick is called (async-signal-safe: from
 * the SIGINT handler; the latest stopper started gets the kicks), NULL when
 * no pipe or thread could be made. end: joins the thread (kicks already
 * made are handled first) and frees st (NULL: nothing). */
typedef struct aw_play_stopper aw_play_stopper;
aw_play_stopper *aw_play_stopper_start(void (*fn)(void *ud), void *ud);
void aw_play_stopper_kick(void);
void aw_play_stopper_end(aw_play_stopper *st);

/* datadir.c: the running binary's absolute path (/proc/self/exe), NULL when
 * unknown; the folder of the shared files (agents/, lua/, meta/, templates/):
 * PREFIX/share/aiwolf beside PREFIX/bin/aiwolf, or for the binary of a build
 * tree its source tree, NULL when neither is there; 1 when the first aiwolf
 * on the PATH is this binary (so hints can say plain `aiwolf`). Static
 * strings, computed once. */
const char *aw_cli_self_path(void);
const char *aw_cli_data_dir(void);
int aw_cli_self_on_path(void);

#endif
