/* datadir: where the running aiwolf is and where its shared files are
 * (docs/install.md). An installed aiwolf finds PREFIX/share/aiwolf from its
 * own path (PREFIX/bin/aiwolf), so a prefix moved as a whole still works; the
 * binary of a build tree uses the source tree it was built from. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_exe(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

const char *aw_cli_self_path(void)
{
    static char self[PATH_MAX];
    static int done;
    if (!done) {
        done = 1;
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        self[n > 0 ? n : 0] = 0;
    }
    return self[0] ? self : NULL;
}

const char *aw_cli_data_dir(void)
{
    static char dir[PATH_MAX + 32];
    static int done;
    if (done)
        return dir[0] ? dir : NULL;
    done = 1;
    const char *self = aw_cli_self_path();
    if (!self)
        return NULL;
    char bindir[PATH_MAX];
    snprintf(bindir, sizeof bindir, "%s", self);
    char *slash = strrchr(bindir, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    char probe[PATH_MAX + 64];
    /* installed: PREFIX/bin/aiwolf next to PREFIX/share/aiwolf */
    char *up = strrchr(bindir, '/');
    if (up) {
        snprintf(probe, sizeof probe, "%.*s/share/aiwolf/agents", (int)(up - bindir), bindir);
        if (is_dir(probe)) {
            snprintf(dir, sizeof dir, "%.*s/share/aiwolf", (int)(up - bindir), bindir);
            return dir;
        }
    }
#if defined(AIWOLF_BUILD_DIR) && defined(AIWOLF_SOURCE_DIR)
    /* the binary of a build tree: the sources it was built from */
    char built[PATH_MAX];
    if (realpath(AIWOLF_BUILD_DIR, built) && strcmp(built, bindir) == 0) {
        snprintf(probe, sizeof probe, "%s/agents", AIWOLF_SOURCE_DIR);
        if (is_dir(probe)) {
            snprintf(dir, sizeof dir, "%s", AIWOLF_SOURCE_DIR);
            return dir;
        }
    }
#endif
    return NULL;
}

int aw_cli_self_on_path(void)
{
    const char *self = aw_cli_self_path();
    const char *path = getenv("PATH");
    if (!self || !path)
        return 0;
    char real_self[PATH_MAX];
    if (!realpath(self, real_self))
        return 0;
    /* the first aiwolf on the PATH is the one a shell would run */
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char cand[PATH_MAX + 16];
        if (n > 0 && n < PATH_MAX) {
            snprintf(cand, sizeof cand, "%.*s/aiwolf", (int)n, p);
            if (is_exe(cand)) {
                char real[PATH_MAX];
                return realpath(cand, real) && strcmp(real, real_self) == 0;
            }
        }
        if (!end)
            break;
        p = end;
    }
    return 0;
}
