/* cmd_protocol: `aiwolf protocol` reads utterances (its arguments, or one
 * per line on stdin) and prints for each "valid<TAB>canonical text" or "invalid<TAB>error with
 * the byte offset"; with --describe a third column says what the sentence
 * means. Uses protocol and util. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "protocol.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aiwolf protocol [--strict | --lenient] [--describe en|ja] [UTTERANCE...]\n"
            "\n"
            "Checks AIWolf protocol utterances — the ones given as arguments, or else\n"
            "one per line on standard input — and prints one line for each:\n"
            "  valid<TAB>canonical text[<TAB>description]\n"
            "  invalid<TAB>at byte N: what was expected there\n"
            "\n"
            "  --strict          accept exactly what the official AIWolf library accepts (default)\n"
            "  --lenient         also accept the seed specification's spellings (Agent1, OVER, SKIP,\n"
            "                    keywords in any case)\n"
            "  --describe en|ja  add a description of each valid sentence in English or Japanese\n"
            "  --help            show this help\n"
            "\n"
            "The exit status is 0 whatever the verdicts; 2 for bad options.\n");
}

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
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            free(args);
            return 0;
        } else if (strcmp(argv[i], "--lenient") == 0) {
            mode = AW_VALIDATE_LENIENT;
        } else if (strcmp(argv[i], "--strict") == 0) {
            mode = AW_VALIDATE_STRICT;
        } else if (strcmp(argv[i], "--describe") == 0 || strncmp(argv[i], "--describe=", 11) == 0) {
            const char *v = argv[i][10] == '=' ? argv[i] + 11 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v || (strcmp(v, "en") != 0 && strcmp(v, "ja") != 0)) {
                fprintf(stderr, "aiwolf protocol: --describe needs 'en' or 'ja'\n");
                free(args);
                return 2;
            }
            lang = v;
        } else if (strcmp(argv[i], "--") == 0) { /* the rest are utterances, even "-x" */
            while (++i < argc)
                args[nargs++] = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "aiwolf protocol: unknown option '%s' (see aiwolf protocol --help)\n", argv[i]);
            free(args);
            return 2;
        } else {
            args[nargs++] = argv[i];
        }
    }

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
