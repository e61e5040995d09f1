/* protocol_bench: how fast the protocol module parses, validates and prints
 * the talks of real games, and how many bytes a parsed tree costs. It reads
 * the talk and whisper lines (day,talk|whisper,idx,turn,agent,text; split at
 * most 6 fields) of every game.log given on the command line, or of
 * tests/fixtures/official/tcp/NAME/game.log when run from the project root
 * with no arguments. Allocation is measured with glibc's mallinfo2 around a
 * pass that keeps every tree alive. Uses protocol and util. */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

typedef struct {
    char **text;
    size_t *len;
    size_t n, cap, bytes;
} corpus;

static void add_log(corpus *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "protocol_bench: cannot open %s\n", path);
        exit(2);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t r;
    while ((r = getline(&line, &cap, f)) >= 0) {
        size_t len = (size_t)r;
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        /* Fields 1..5 end at the 5th comma; the text may contain commas. */
        char *p = line;
        int commas = 0;
        while (*p && commas < 5)
            if (*p++ == ',')
                commas++;
        if (commas < 5 || (!strstr(line, ",talk,") && !strstr(line, ",whisper,")))
            continue;
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 256;
            c->text = aw_xrealloc(c->text, c->cap * sizeof *c->text);
            c->len = aw_xrealloc(c->len, c->cap * sizeof *c->len);
        }
        c->len[c->n] = strlen(p);
        c->text[c->n++] = aw_xstrdup(p);
        c->bytes += strlen(p);
    }
    free(line);
    fclose(f);
}

static double seconds(uint64_t ns)
{
    return (double)ns / 1e9;
}

int main(int argc, char **argv)
{
    corpus c = {0};
    int logs = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++, logs++)
            add_log(&c, argv[i]);
    } else {
        const char *dir = "tests/fixtures/official/tcp";
        DIR *d = opendir(dir);
        if (!d) {
            fprintf(stderr, "protocol_bench: run from the project root or name game.log files\n");
            return 2;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s/game.log", dir, e->d_name);
            add_log(&c, path);
            logs++;
        }
        closedir(d);
    }
    if (!c.n) {
        fprintf(stderr, "protocol_bench: no talk lines found\n");
        return 2;
    }

    /* Allocation: parse everything once, keeping the trees. */
    aw_sentence **trees = aw_xcalloc(c.n, sizeof *trees);
    struct mallinfo2 before = mallinfo2();
    size_t nodes = 0, invalid = 0;
    for (size_t i = 0; i < c.n; i++) {
        trees[i] = aw_protocol_parse(c.text[i], c.len[i], AW_VALIDATE_STRICT, NULL);
        invalid += trees[i] == NULL;
    }
    struct mallinfo2 after = mallinfo2();
    for (size_t i = 0; i < c.n; i++) {
        aw_sentence *stack[256];
        size_t sp = 0;
        if (trees[i])
            stack[sp++] = trees[i];
        while (sp) {
            aw_sentence *s = stack[--sp];
            nodes++;
            for (size_t k = 0; k < s->nargs && sp < 256; k++)
                stack[sp++] = s->args[k];
        }
        aw_sentence_free(trees[i]);
    }
    free(trees);
    double alloc_per = (double)(after.uordblks - before.uordblks) / (double)(c.n - invalid);

    /* Speed: repeat each operation for at least a second. */
    const char *names[3] = {"parse+free", "validate", "parse+print+free"};
    double rate[3];
    for (int op = 0; op < 3; op++) {
        size_t done = 0;
        uint64_t t0 = aw_now_ns(), t;
        aw_buf b;
        aw_buf_init(&b);
        do {
            for (size_t i = 0; i < c.n; i++) {
                if (op == 1) {
                    (void)aw_protocol_validate(c.text[i], c.len[i], AW_VALIDATE_STRICT, NULL);
                } else {
                    aw_sentence *s = aw_protocol_parse(c.text[i], c.len[i], AW_VALIDATE_STRICT, NULL);
                    if (op == 2 && s) {
                        aw_buf_clear(&b);
                        aw_protocol_print(s, &b);
                    }
                    aw_sentence_free(s);
                }
            }
            done += c.n;
            t = aw_now_ns();
        } while (t - t0 < 1000000000u);
        aw_buf_free(&b);
        rate[op] = (double)done / seconds(t - t0);
    }

    printf("corpus: %d game logs, %zu talk/whisper lines, %zu bytes (%.1f bytes/line), %zu invalid\n", logs, c.n,
           c.bytes, (double)c.bytes / (double)c.n, invalid);
    printf("tree: %.2f nodes/sentence, %.1f bytes allocated/sentence (mallinfo2, malloc overhead included)\n",
           (double)nodes / (double)(c.n - invalid), alloc_per);
    for (int op = 0; op < 3; op++)
        printf("%-17s %12.0f sentences/s  (%.0f ns each)\n", names[op], rate[op], 1e9 / rate[op]);
    for (size_t i = 0; i < c.n; i++)
        free(c.text[i]);
    free(c.text);
    free(c.len);
    return 0;
}
