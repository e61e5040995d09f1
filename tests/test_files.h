/* test_files.h: listing the recorded files a C test walks over. */
#ifndef AW_TEST_FILES_H
#define AW_TEST_FILES_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"

static inline int test_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir whose names end in suffix, sorted; the array and the
 * names are owned by the caller (free_names). A folder that cannot be opened
 * is a failed check. */
static inline int list_dir(const char *dir, const char *suffix, char ***out)
{
    DIR *d = opendir(dir);
    *out = NULL;
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d)
        return 0;
    int n = 0, cap = 16;
    char **names = aw_xmalloc((size_t)cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name), sl = strlen(suffix);
        if (e->d_name[0] == '.' || l < sl || strcmp(e->d_name + l - sl, suffix) != 0)
            continue;
        if (n == cap)
            names = aw_xrealloc(names, (size_t)(cap *= 2) * sizeof *names);
        names[n++] = aw_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, test_cmp_names);
    *out = names;
    return n;
}

static inline void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

#endif
