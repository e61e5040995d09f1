/* cmd_protocol: `aiwolf protocol` reads utterances (its arguments, or one
 * per line on stdin) and prints for each "valid<TAB>canonical text" or "invalid<TAB>error with
 * the byte offset"; with --describe a third column says what the sentence
 * means. Uses protocol and util. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "protocol.h"

/* --help: the head, the options (the table in cmd_protocol), the foot. */
static const char protocol_head[] =
    "usage: aiwolf protocol [--strict | --lenient] [--describe en|ja] [UTTERANCE...]\n"
    "\n"
    "Checks AIWolf protocol utterances — the ones given as arguments, or else\n"
    "one per line on standard input — and prints one line for each:\n"
    "  valid<TAB>canonical text[<TAB>description]\n"
    "  invalid<TAB>at byte N: what was expected there\n"
    "\n";
static const char protocol_foot[] =
    "\n"
    "The exit status is 0 whatever the verdicts; 2 for bad options.\n";

/* One verdict line for one utterance. */
static void verdict(const char *line, size_t len, aw_validation mode, const char *lang, aw_buf *out)
{
    aw_error err = {0};
    aw_sentence *s = aw_protocol_parse(line, len, mode, &err);
    aw_buf_clear(out);
    if (s) {
        aw_buf_adds(out, "valid\t");
        aw_protocol_print(s, out);
        if (lang) {
            aw_buf_addc(out, '\t');
            aw_protocol_describe(s, AW_UNSPEC, lang, out);
        }
        aw_sentence_free(s);
    } else {
        aw_buf_adds(out, "invalid\t");
        aw_buf_adds(out, err.msg);
        /* What strict mode refuses but the seed's spelling allows: say so. */
        aw_error lerr;
        aw_sentence *l = mode == AW_VALIDATE_STRICT && !strstr(err.msg, "lenient")
                             ? aw_protocol_parse(line, len, AW_VALIDATE_LENIENT, &lerr)
                             : NULL;
        if (l) {
            aw_buf_adds(out, " (valid with --lenient, as ");
            aw_protocol_print(l, out);
            aw_buf_addc(out, ')');
            aw_sentence_free(l);
        }
    }
    aw_buf_addc(out, '\n');
    fwrite(out->data, 1, out->len, stdout);
}

int cmd_protocol(int argc, char **argv)
{
    aw_validation mode = AW_VALIDATE_STRICT;
    const char *lang = NULL;
    int nargs = 0;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args)
        return 2;
    int lenient = 0;
    aw_opt_list arg_list = {(const char **)args, 0, argc, NULL};
    const aw_opt opts[] = {
        {.name = "--strict", .kind = AW_OPT_SETINT, .to = &lenient, .min = 0,
         .help = "accept exactly what the official AIWolf library accepts (default)"},
        {.name = "--lenient", .kind = AW_OPT_SETINT, .to = &lenient, .min = 1,
         .help = "also accept the seed specification's spellings (Agent1, OVER, SKIP,\n"
                 "keywords in any case)"},
        {.name = "--describe", .arg = "en|ja", .kind = AW_OPT_CHOICE, .to = &lang,
         .help = "add a description of each valid sentence in English or Japanese"},
        {.name = "--help", .kind = AW_OPT_HELP, .help = "show this help"},
        {.name = "-h", .kind = AW_OPT_HELP}, /* not listed */
        {0},
    };
    const aw_opts_cmd cmd = {"protocol", protocol_head, opts, protocol_foot, &arg_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK) {
        free(args);
        return prc == AW_OPTS_EXIT ? 0 : 2;
    }
    nargs = arg_list.n;
    mode = lenient ? AW_VALIDATE_LENIENT : AW_VALIDATE_STRICT;

    aw_buf out;
    aw_buf_init(&out);
    if (nargs) {
        for (int i = 0; i < nargs; i++)
            verdict(args[i], strlen(args[i]), mode, lang, &out);
        aw_buf_free(&out);
        free(args);
        return 0;
    }
    free(args);

    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            len--;
        verdict(line, len, mode, lang, &out);
    }
    free(line);
    aw_buf_free(&out);
    if (ferror(stdin)) {
        fprintf(stderr, "aiwolf protocol: error reading standard input\n");
        return 2;
    }
    return 0;
}
