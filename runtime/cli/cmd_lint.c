/* cmd_lint: `aiwolf lint FILE...` checks agent files for what would go wrong
 * in a game, before a game does (the checks are in luahost/lualint). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cli.h"
#include "options.h"
#include "lualint.h"

/* --help: the head, the options (the table in cmd_lint), the foot. */
static const char lint_head[] =
    "usage: aiwolf lint [-q] FILE...\n"
    "\n"
    "Checks Lua agent files for what would fail in a game, before a game does,\n"
    "in the same sandbox a game uses (nothing else needs to be installed):\n"
    "  - the file compiles: syntax errors, with FILE:LINE;\n"
    "  - its top level runs and returns a table of methods (errors at load,\n"
    "    modules it requires that are missing);\n"
    "  - the whole file's compiled code, every function and not only what runs\n"
    "    at load: assignments to globals (use locals: a global hides typos),\n"
    "    names that are not globals of the sandbox (a typo such as 'ipars', or\n"
    "    io, dofile, debug... which the sandbox leaves out), and library fields\n"
    "    the sandbox does not have (os.exit, string.dump);\n"
    "  - the methods: a name close to one the game calls but not it ('tlak',\n"
    "    'day_start', 'Vote'), 'dayFinish' (never called here), a method name\n"
    "    bound to something that is not a function; and, as a note, which of\n"
    "    getName initialize update dayStart talk whisper vote divine guard\n"
    "    attack finish the agent leaves undefined.\n"
    "Each finding is one line, FILE:LINE: message. A clean file prints 'FILE: ok'.\n"
    "FILE is a file, never '-' (standard input): a file's modules are found\n"
    "beside it, as in a game.\n"
    "\n"
    "Lint cannot see what only happens in a game (a wrong reply, an error in a\n"
    "branch that runs on day 3). luacheck with the .luacheckrc that 'aiwolf new'\n"
    "writes goes further (unused variables, shadowing, fields of every library),\n"
    "and 'aiwolf play --events' shows faults in real games.\n"
    "\n"
    "options:\n";
static const char lint_foot[] =
    "\n"
    "exit status: 0 no findings, 1 findings, 2 bad usage or a file that cannot be read\n";

int cmd_lint(int argc, char **argv)
{
    bool quiet = false;
    int nfiles = 0;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) {
        fprintf(stderr, "aiwolf lint: out of memory\n");
        return 2;
    }
    aw_opt_list file_list = {files, 0, argc, NULL};
    const aw_opt opts[] = {
        {.name = "--quiet", .alias = "-q", .kind = AW_OPT_FLAG, .to = &quiet,
         .help = "print only findings (no 'ok' lines, no notes)"},
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "show this help"},
        {0},
    };
    const aw_opts_cmd cmd = {"lint", lint_head, opts, lint_foot, &file_list, 16};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK) {
        free(files);
        return prc == AW_OPTS_EXIT ? 0 : 2;
    }
    nfiles = file_list.n;
    if (nfiles == 0) {
        fprintf(stderr, "aiwolf lint: no files given (aiwolf lint --help)\n");
        free(files);
        return 2;
    }
    /* The defaults an agent gets in a game, with its talk hooks (require
     * "aiwolf.protocol" works as in a game). */
    aw_agent_opts ao;
    memset(&ao, 0, sizeof ao);
    aw_luaseat_opts lo;
    aw_agent_luaseat_opts(&ao, &lo);
    int status = 0;
    aw_buf findings, notes;
    aw_buf_init(&findings);
    aw_buf_init(&notes);
    for (int i = 0; i < nfiles; i++) {
        aw_error err;
        if (!strcmp(files[i], "-")) {
            fprintf(stderr, "aiwolf lint: '-': lint reads agent files, not standard input (a file's modules are "
                            "found beside it): give the file's path\n");
            status = 2;
            continue;
        }
        aw_buf_clear(&findings);
        aw_buf_clear(&notes);
        int n = aw_lualint(files[i], &lo, &findings, &notes, &err);
        if (n < 0) {
            aw_cli_line(stderr, "aiwolf lint: %s", err.msg);
            status = 2;
            continue;
        }
        fwrite(findings.data ? findings.data : "", 1, findings.len, stdout);
        if (!quiet)
            fwrite(notes.data ? notes.data : "", 1, notes.len, stdout);
        if (n > 0 && status == 0)
            status = 1;
        if (n == 0 && !quiet)
            aw_cli_line(stdout, "%s: ok", files[i]);
    }
    aw_buf_free(&findings);
    aw_buf_free(&notes);
    free(files);
    fflush(stdout);
    return status;
}
